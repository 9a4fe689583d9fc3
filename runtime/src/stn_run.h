/*
 * stn_run.h -- one run of a generated program: what it is given (stn_run), what each engine gives
 * back (stn_result, and stn_ooc_result for the out-of-core plan), and the engines' entry points.
 * Private to the runtime.
 *
 * The runtime's files in layers, lowest first; a file calls only into its own layer or lower ones
 * (test/python/test_runtime_layers.py checks this on the object files with nm):
 *   1. error, stats, alloc, file, ring, npy, progress, hw, gridio, args,      the pieces
 *      usage (--help, suggestions), mapfile (--mode mmap's files),
 *      device (the flash device's curves), probe (measuring them), par (MPI ranks),
 *      desc (the descriptor's checks), checkpoint (a checkpoint's manifest)
 *   2. run.c (warnings, the engines' arrays), iblock.c (step 1 of Blk-Tune)   what engines share
 *   3. ooc_plan.c (block geometry, the exact IO model), tune.c (the tuners)   planning, no engine
 *      tune_rate.c (the finalists' compute rate, measured on their blocks)
 *   4. incore.c; ooc.c, ooc_window.c, ooc_xfer.c, ooc_state.c                the engines
 *   5. report.c, runfiles.c (the run's files), summary.c (what a run prints)   around the engine
 *   6. program.c                                                              stn_program_main
 */
#ifndef STN_RUN_H
#define STN_RUN_H

#include "stn_internal.h"

/* ------------------------------------------------------------------ run.c: warnings */

#define STN_MAX_WARNINGS 16

/* The warnings of a run: kept for the report (the first STN_MAX_WARNINGS), printed on stderr
 * as "NAME: warning: ..." unless quiet. */
typedef struct stn_log {
    const char *name; /* the program's name */
    int quiet;
    int n;
    char *msg[STN_MAX_WARNINGS];
} stn_log;

void stn_warn(stn_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void stn_log_free(stn_log *log);

/* ------------------------------------------------------------------ run.c: one run */

/* A 1d grid folded into rows for the out-of-core engine (docs/design/014, "the fold"): cell i of
 * the n cells lies at i + P of a 2d grid of `rows` rows of W cells, stored contiguously (no row
 * padding: W x element is a multiple of the O_DIRECT alignment).  Row 0 holds the leading boundary
 * cells in its tail (P = W - h-), the interior starts at row 1, and the last row holds trailing
 * boundary cells (or none) and nothing of the interior.  The engine streams rows with a halo and a
 * skew of one row; the kernels see the 1d grid (stn_fold_map).  W = 0: not folded. */
typedef struct stn_fold {
    int64_t W, P, n, rows;
    int64_t lo, hi; /* the interior of the 1d grid: [lo, hi) = [h-, n - h+) */
    uint64_t held;  /* DRAM the run holds whole beside the rings (a 1d grid's inputs along x; an MPI
                     * rank's ghosts in flight, stn_slab.defer; W may be 0): the plan counts it */
} stn_fold;

/* A rank's part of the grid under MPI (docs/design/018): the ranks split the axis the blocks stream
 * along (y in 2d, z in 3d) into slabs of the interior; each rank's engine runs on its own slab and
 * ghost indices of depth g = bt x skew on each side shared with a neighbour, whose outer `reach`
 * indices it never computes (a frozen layer: its values are right at the sweep's first step, and
 * what goes wrong from there reaches no further than g in bt steps).  After each sweep the ranks
 * swap their own edge indices into each other's ghosts.  The engine indexes the slab locally; the
 * kernels see the whole grid's coordinates (stn_map_call).  axis = 0: not split. */
typedef struct stn_slab {
    int axis;               /* 1 (y) or 2 (z); 0: one rank */
    int rank, nranks;       /* this rank, the ranks along the axis */
    int64_t n;              /* the whole grid's extent along the axis */
    int64_t base;           /* the whole grid's index of local index 0 */
    int64_t own_lo, own_hi; /* the rank's own indices (local): what it exchanges and writes out */
    int64_t g;              /* ghost depth: indices below own_lo and from own_hi that neighbours own */
    int periodic;           /* some field wraps the axis: the ranks are a ring, [L, H) the only indices
                             * (global index base + i is L + (base + i - L) mod (H - L)) */
    int64_t L, H;           /* the whole grid's interior along the axis */
    int below, above;       /* the world ranks of the neighbours along the axis (-1: none) */
    /* --ranks PX,PY,PZ (docs/design/019): the other axes the ranks cut too (bit k: axis k), each
     * with the whole grid's extent, the base (global index of local 0), the rank's own local
     * indices [xlo, xhi), the ghost depth and the neighbours' world ranks below and above */
    int cut;
    int64_t xn[3], xbase[3], xlo[3], xhi[3], xg[3];
    int ring; /* bit k: the ranks along axis k are a ring (a field wraps it; the split axis' too) */
    int64_t xL[3], xH[3]; /* each axis' interior [L, H) of the whole grid */
    int64_t skew[3];      /* each axis' skew: a cut axis' ghosts are bt x skew deep */
    int64_t bt;           /* the steps of those ghosts */
    uint64_t defer; /* out of core: the bytes of the buffers of the exchange's second half, overlapped with
                     * the next sweep's first blocks (docs/design/019); 0: the exchange blocks whole */
    int xnb[3][2];
    int dims[3], coord[3]; /* the ranks along each axis, and this rank's place */
} stn_slab;

/* The fold of a 1d grid of n cells with halo h- and h+ whose steps reach `reach` cells (>= the
 * halo), for rows whose bytes are a multiple of `align`: W is the smallest multiple of the
 * alignment's cells of at least 4 KiB and `reach` cells such that the trailing boundary cells'
 * mirror sources lie in the last interior row or the row after it (so that every window that holds
 * a boundary cell holds its sources, as in 2d). */
void stn_fold_make(int64_t n, int64_t hlo, int64_t hhi, int64_t reach, int64_t elem, size_t align,
                   stn_fold *f);
/* How many of the 1d grid's cells rows [r0, r1) hold. */
int64_t stn_fold_cells(const stn_fold *f, int64_t r0, int64_t r1);
/* The 1d cells of the engine's rows [box->lo[1], box->hi[1]) (x spans the row), clipped to the
 * interior (interior != 0: a step's box) or to the grid: *b1 and the 1d view *v1 of the window `v`
 * (the folded view, y0 its first row), and `*shift`, the 1d index of the window's first cell: the
 * kernels' pointers are the window's minus shift elements.  0 when no cell is left. */
int stn_fold_map(const stn_fold *f, const stn_view *v, const stn_box *box, int interior, stn_view *v1,
                 stn_box *b1, int64_t *shift);

/* What a run is given: the program, its command line, the machine it plans for and the DRAM
 * budget.  program.c sets it up; the engines read it, add warnings to `log` and fill the
 * writers' files. */
typedef struct stn_run {
    const stn_program_desc *d;
    const stn_opts *o;
    stn_hw hw; /* the machine planned for: discovered, or --machine */
    stn_view view;
    uint64_t grid_bytes; /* bytes of one level of one field */
    uint64_t mem_budget;
    char mem_source[256];
    stn_npy_writer **writers; /* [2 * nfields], indexed like o->out_path */
    double t_start;           /* stn_program_main entered */
    stn_log *log;
    stn_device dev;        /* --mode ooc: the device's bandwidth curves, for the time model */
    double **series;       /* [nseries]: each series' values, as read from its --init file */
    int64_t *series_len;   /* [nseries] */
    uint64_t series_bytes; /* the data bytes of the series files (read once, before the engine) */
    int64_t **pts;         /* [npointsets]: x, y, z of each point of each set */
    int64_t *npts;         /* [npointsets] */
    uint64_t points_bytes; /* the data bytes of the points files */
    void **rec;            /* [nrecords]: steps x n samples of each record (row t: step t) */
    void **along;          /* [nalong]: each input along an axis, its axis' extent of elements */
    uint64_t along_bytes;  /* the data bytes of their files */
    stn_fold fold;         /* the out-of-core engine's run of a 1d grid: its rows (W = 0 otherwise) */
    stn_slab slab;         /* the out-of-core engine's run of one rank's slab (axis = 0 otherwise) */
    double net_bytes_per_second, net_latency; /* MPI: the network, measured at startup (stn_par_network) */
    char net_source[160];
} stn_run;

/* A run's copy on a rank's slab (MPI) or a 1d grid's rows: its own options, descriptor and name,
 * run.o and run.d pointing at them. */
typedef struct stn_run_copy {
    stn_run run;
    stn_opts opts;
    stn_program_desc desc;
    char name[256];         /* NAME.rK: a rank's files */
    stn_field_desc *fields; /* along rings: no field wraps a ring's axis in the part (NULL: d's) */
} stn_run_copy;
/* r's 1d grid folded into rows (docs/design/014) for O_DIRECT rows of `align` bytes, or, periodic,
 * as one row that is one block (--block BX,BT refused); c->fields owned by c. */
int stn_fold_run(const stn_run *r, size_t align, stn_run_copy *c);
/* The ranks along each axis (dims[k]): --ranks, or the split of stn_par_size() ranks the IO model
 * prefers (docs/design/019); a 1d grid's ranks split its folded rows.  0, or -EINVAL with the
 * reason in why. */
int stn_slab_dims(const stn_run *r, int dims[3], char *why, size_t n);
/* What a rank writes of an --out along axis k: its own local indices [out[0][0], out[0][1]), and along a
 * ring also those the boundary layer copies, each out[j] = {a, b, d} going to whole-grid index local +
 * base + d; *n (when not NULL) the pieces, the count of indices returned. */
int stn_slab_out(const stn_slab *s, int k, int64_t out[3][3], int *n);
/* The cells a rank writes of an --out: the product of stn_slab_out's counts over the axes. */
uint64_t stn_slab_out_cells(const stn_slab *s);
/* The largest bt whose ghosts (bt x skew) every rank's part can give its neighbours. */
int64_t stn_slab_most_bt(const stn_run *r);
/* r's run on this rank's slab, for ghosts of bt steps (c->run.slab; the sizes, view and grid bytes
 * local, the halo on a side cut between ranks the step's reach, the --out writers expecting the
 * rank's own slices): 0, or -EINVAL when a slab is thinner than the ghosts a neighbour takes. */
int stn_slab_run(const stn_run *r, int64_t bt, stn_run_copy *c);

/* Read or evaluate every input along an axis (--init NAME=FILE, 1d of the axis' extent; else its
 * init expression, else zero); counted in `st`. */
int stn_along_load(stn_run *r, stn_stats *st);
void stn_along_free(stn_run *r);

/* Read every set of points (--init NAME=FILE: (n, ndim) integers, x first, each in the interior)
 * and allocate the records' samples; counted in `st`. */
int stn_points_load(stn_run *r, stn_stats *st);
void stn_points_free(stn_run *r);
/* Bytes of one step's samples, all records together. */
uint64_t stn_record_row_bytes(const stn_run *r);

/* Read every series' --init file (1d, the grid's element type), long enough for the run's steps
 * and the terms the kernels read; counted in `st`. */
int stn_series_load(stn_run *r, stn_stats *st);
void stn_series_free(stn_run *r);

/* The iBlock of a run (Blk-Tune's step 1) and the kernels' tile of one thread. */
typedef struct stn_iblock_pick {
    int64_t iblk[2];  /* iy, iz (iz = -1 in 2d) */
    char source[160]; /* how it was chosen */
    int64_t tile[2];  /* one thread's share: iy x iz / Nc in 3d, iy / Nc rows in 2d */
} stn_iblock_pick;

/* Predicted seconds of an out-of-core time loop, and their parts (stn_ooc_predict_time). */
typedef struct stn_time_pred {
    double total;        /* import + sweeps + export */
    double compute;      /* the kernels alone */
    double io;           /* the asynchronous reads and writes alone (the device busy) */
    double npy;          /* --init reads (synchronous, first sweep) */
    double fill;         /* the first block of each row read, and its last written, with no overlap */
    double xfer;         /* the import of inputs and the export of --out */
    double copy;         /* the z-strip kept in DRAM: its rows copied out of the ring and back */
    uint64_t copy_bytes; /* those copies' bytes (stn_result.strip_copied counts the run's) */
    uint64_t request;    /* the size of a block's requests */
    double exchange;     /* MPI: the ghosts' exchanges between sweeps, their file IO and messages */
    double messages;     /* of which the messages (bytes over the bandwidth, a latency each) */
} stn_time_pred;

/* What every engine gives back. */
typedef struct stn_result {
    stn_stats st;
    uint64_t predicted_read, predicted_written; /* the engine's IO model */
    double loop_seconds;                        /* the time loop alone */
    uint64_t engine_bytes;                      /* peak of stn_alloc during the run */
    uint64_t peak_pss; /* highest stn_pss_bytes() sampled during the run (ooc: after each sweep) */
    stn_iblock_pick ib;
    int have_paging;                      /* --mode mmap: the kernel's paging traffic was measured */
    uint64_t paging_read, paging_written; /* storage bytes read / written back during the time loop */
    int have_time;                        /* ooc: the time model ran */
    stn_time_pred time;
    int64_t time_tiles[3];        /* in-core: the temporal tiles by, bz, bt (bt 0: the plain loop) */
    char tiles_source[160];       /* in-core: how they were chosen, or why there are none */
    double cells_per_second;      /* ooc: the kernels' rate the time model used */
    char rate_source[256];        /* and where it came from */
    double copy_bytes_per_second; /* ooc: DRAM copy rate the time model used (0: not modelled) */
    char copy_source[160];        /* and where it came from */
    uint64_t strip_copied;        /* ooc: bytes the z-strip in DRAM copied (out of the ring and back) */
    uint64_t msg_sent;            /* MPI: bytes this rank sent its neighbours (the ghosts' exchanges) */
    uint64_t msg_predicted;       /* and what the model says they are */
    int dims[3];                  /* MPI: the ranks along x, y and z (docs/design/019) */
    int overlapped;               /* MPI, ooc: the exchanges' way down ran beside the next sweep */
    int nranks;                   /* MPI, rank 0 after the run: the ranks' figures (the fields above are */
    uint64_t *ranks;              /* their sums): STN_RANK_FIGURES each, read, written, predicted read and
                                   * written, message bytes sent and predicted */
} stn_result;
#define STN_RANK_FIGURES 6

/* What the out-of-core engine adds: its plan and how it was chosen. */
/* A plan Blk-Tune measured before choosing (stn_ooc_choose). */
typedef struct stn_ooc_finalist {
    int64_t blk[3];          /* by, bz, bt (bz -1 in 2d) */
    int strip;               /* STN_STRIP_* */
    double cells_per_second; /* the kernels' rate measured on its blocks */
    double seconds;          /* its predicted time with that rate */
    uint64_t bytes;          /* its predicted bytes */
} stn_ooc_finalist;

typedef struct stn_ooc_result {
    int64_t blk[3];                /* by, bz, bt of the plan (-1: not applicable) */
    const char *chooser;           /* who chose them: "manual", "built-in" or a tuner's name */
    const char *strip;             /* where the z-strip of a y-blocked plan goes: "none", "dram", "file" */
    uint64_t tune_cost;            /* the tuner's figure for the chosen plan: predicted bytes */
    int64_t tune_weighed;          /* plans it evaluated (0: no tuner ran) */
    double tune_seconds;           /* and the time it took */
    uint64_t mem_plan_bytes;       /* what the plan allocates, counted against the budget */
    int64_t fold_row, fold_rows;   /* a 1d grid folded into rows: W and the rows (0: not folded) */
    stn_ooc_finalist finalists[4]; /* blk ranking by time: the plans it measured */
    int nfinalists;
} stn_ooc_result;

/* The arrays both engines keep: one zeroed record of `field_size` bytes per field, and the
 * kernels' source and destination pointer lists (one spare slot each).  0, or -ENOMEM with the
 * error set (naming `engine`); on failure the caller frees whatever is not NULL. */
int stn_engine_arrays(const stn_program_desc *d, size_t field_size, void **f, const void ***src, void ***dst,
                      const char *engine);

/* The kernels' rate in cells per second, measured on a small grid of the run's rows (all arrays
 * together at most `cap` bytes) with the iBlock `tile`, for about 50 ms; `source` says how. */
/* One step of the kernel on `box` (d->step), its failure (a stencil with sub-steps that cannot
 * allocate its tiles' scratch) turned into an error naming the stencil and the box.  t: the index
 * of the step being computed (0 first), given to the kernels with the series' values at it; then
 * the injects and records at the points in the box.  t < 0: a step that only measures (t = 0 for
 * the kernels, no injects, no records). */
int stn_step(const stn_run *r, int64_t t, const stn_view *v, const void *const *src, void *const *dst,
             const stn_box *box, const int64_t tile[2]);
/* The kernels' views and boxes of a call on the engine's view v and box: a folded run's 1d cells
 * (stn_fold_map), a part's whole-grid coordinates (x by the pointer shift), or v and box themselves;
 * along each ring of ranks (periodic) in up to three pieces, each moved into the interior [L, H) by
 * its width (wrap[k]: 1 when some axis moved), the kernels told that the engine fills the axes'
 * wrap (own_axes).  The number of calls (0 when the call has no cell). */
#define STN_MAP_MAX 27 /* up to three pieces along each of three rings */
int stn_map_call(const stn_run *r, const stn_view *v, const stn_box *box, int interior,
                 stn_view v1[STN_MAP_MAX], stn_box b1[STN_MAP_MAX], int64_t shift[STN_MAP_MAX],
                 int wrap[STN_MAP_MAX]);
/* [lo, hi) of whole-grid indices along an axis, on a ring (periodic, interior [L, H)) cut where it
 * crosses L or H into up to three pieces out[k] = {a, b, d}: [a, b) whose values are at [a + d,
 * b + d); otherwise one piece, d = 0.  The number of pieces. */
int stn_ring_pieces(int64_t lo, int64_t hi, int ring, int64_t L, int64_t H, int64_t out[3][3]);
/* d->boundary and d->init on a box of the run's grid, through stn_map_call, as stn_step does for the
 * steps. */
void stn_run_boundary(const stn_run *r, int field, const stn_view *v, const void *cur, void *next,
                      const stn_box *box);
void stn_run_init(const stn_run *r, int field, int level, void *data, const stn_view *v, const stn_box *box);
int stn_measure_rate(const stn_run *r, const int64_t tile[2], uint64_t cap, double *cps, char *source,
                     size_t n);
/* The kernels' rate for the time model, once per run: res->cells_per_second if already set, else
 * the --machine file's cells_per_second, else stn_measure_rate with res->ib's tile (on a grid of
 * at most 16 MiB and a quarter of the budget).  0 or -ENOMEM. */
int stn_kernel_rate(const stn_run *r, stn_result *res);
/* The rate at which the threads copy DRAM to DRAM (bytes copied a second), for the time model's
 * z-strip copies, once per run: res->copy_bytes_per_second if already set, else the --machine
 * file's copy_bytes_per_second, else measured here (this machine's run only; buffers past the
 * last-level cache, at most a quarter of the budget, about 30 ms).  0 or -ENOMEM. */
int stn_copy_rate(const stn_run *r, stn_result *res);

/* ------------------------------------------------------------------ iblock.c */

/* The temporal (cache) tiles' window, for in-core tiles and the cache tiles of out-of-core blocks
 * alike: the window of a tile for bt steps, (width + 2 s bt) rows on a side (one side in 2d, two
 * in 3d), of `arrays` arrays of rows of `row_bytes`, fills the last-level cache (L3 of a socket,
 * else the cores' L2), the skew taking half the side, bt at most 16.  On the 2-core VM
 * (L3 32 MiB) heat3d 512^3 in-core ran at 1.45-1.50e9 cells/s untiled, 2.33-2.45e9 with half
 * the cache and bt 8, 2.75e9 with all of it and bt 16 (32 x 32 tiles; 40 x 40: 2.61e9, 56 x 56:
 * 2.16e9, 100 x 100 x 8: 1.70e9). */
typedef struct stn_time_window_t {
    uint64_t cache; /* the cache it fills, bytes */
    int64_t skew;   /* the skew it was sized for (at least 1) */
    double rows;    /* rows of the whole window */
    double side;    /* rows on one side */
    int64_t bt;     /* steps (may be below 2: no tile pays) */
    int64_t width;  /* the tile's own width on a side (may be below 1: none fits) */
} stn_time_window_t;
void stn_time_window(const stn_hw *hw, uint64_t row_bytes, uint64_t arrays, int64_t skew, int two_dims,
                     stn_time_window_t *w);

/* Step 1 for a run: --iblock, else the built-in iBlock when `builtin` (see stn_tuned_applies),
 * else eq. 1a for the machine; with its source and the kernels' tile of one thread. */
void stn_iblock_choose(const stn_run *r, int builtin, stn_iblock_pick *out);
/* The program has built-in (offline-tuned) blocks and nothing on the command line overrides
 * them (--block, --tuner, --iblock, --machine). */
int stn_tuned_wanted(const stn_run *r);
/* ... and the run's --size (and --schedule) are those they were tuned for: they apply. */
int stn_tuned_applies(const stn_run *r);

/* ------------------------------------------------------------------ the engines */

/* incore.c: --mode incore and --mode mmap, held open (program.c's stn_sim_*, which the program's
 * main runs too). */
typedef struct stn_incore stn_incore;
/* The buffers, each level's initial values (--init file, init, zero; mirrored), the tiles. */
int stn_incore_open(const stn_run *r, stn_result *res, stn_incore **e);
/* Steps t0 .. t0 + steps - 1 (t0 is the index the kernels, series and records see). */
int stn_incore_advance(stn_incore *e, int64_t t0, int64_t steps);
/* The array of field f's current level (level 0) or previous one (1; the current one for a field
 * of one level): the whole grid, laid out as r->view. */
void *stn_incore_level(stn_incore *e, int f, int level);
/* The caller changed cells of that level: its mirrors and wraps again (as after an --init file),
 * and a dirichlet field's boundary cells as written are those its steps keep. */
void stn_incore_written(stn_incore *e, int f, int level);
/* Every --out of a field from the current levels (into the run's writers). */
int stn_incore_export(stn_incore *e);
void stn_incore_close(stn_incore *e); /* NULL is fine */
/* ooc.c: --mode ooc, held open, for the program's main and the simulation API alike (stn_sim_*).
 * open plans for r->o->steps (Blk-Tune; with --resume the saved plan, going on from the state
 * file's sweeps) and opens the scratch and records files; with --plan-only it prints the plan and
 * opens nothing.  `program`: the program's run, whose one advance is the whole run (its last sweep
 * need not commit when nothing reads it after).  advance runs sweeps of the plan's blocks from the
 * current state (the step index going on), each committed to the state file; sim_box moves a box
 * of (field, level) of the current state between the files and a caller's buffer (st: its strides
 * in elements); finish sets the IO and time model of what ran and exports every --out; close
 * removes the scratch files (unless `keep`: after a failure, for --resume) and frees everything. */
typedef struct stn_ooc stn_ooc;
int stn_ooc_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, stn_ooc **s);
int stn_ooc_advance(stn_ooc *s, int64_t steps);
/* The steps the state holds: those advanced, and with --resume those of the sweeps saved before. */
int64_t stn_ooc_steps_done(const stn_ooc *s);
int stn_ooc_sim_box(stn_ooc *s, int f, int level, int write, const int64_t lo[3], const int64_t hi[3],
                    char *buf, const int64_t st[3]);
/* The models of what ran so far: the IO model (with or without the --out exports) and the time model. */
int stn_ooc_account(stn_ooc *s, int exports);
int stn_ooc_finish(stn_ooc *s);
void stn_ooc_close(stn_ooc *s, int keep); /* NULL is fine */

/* ------------------------------------------------------------------ report.c */

/* The JSON report of a run (`plan` NULL unless out-of-core), written atomically. */
int stn_report_write(const stn_run *r, const stn_result *res, const stn_ooc_result *plan, const char *path);
/* The same into `af`, opened already (stn_afile_open), written and synced but not renamed. */
int stn_report_fill(const stn_run *r, const stn_result *res, const stn_ooc_result *plan, stn_afile *af);

/* ------------------------------------------------------------------ runfiles.c: the run's files */

/* The .npy shape of the run's grid: (nz, ny, nx), (ny, nx) or (nx,), the pointer into shape. */
int64_t *stn_npy_shape(const stn_run *r, int64_t shape[3]);
/* Every --init file of a field level looked at (header, type, shape) before anything is allocated. */
int stn_check_inputs(stn_run *r);
/* Before the engine: each --out's temporary created with its size reserved (r->writers, collective
 * under MPI), and the report's temporary (`report`, zeroed first; rank 0, with --report) created
 * empty, so that a target that cannot be written fails before anything is computed. */
int stn_outputs_open(stn_run *r, stn_afile *report);
/* Bytes of one step's samples of record k. */
uint64_t stn_record_bytes(const stn_run *r, int k);
/* After a successful engine: the records written, every output synced, (MPI) the ranks' figures
 * gathered on rank 0, the report written and synced, and only then the outputs and the report
 * renamed into place; a failure leaves none of them (only a failing rename, after the others). */
int stn_outputs_commit(stn_run *r, stn_result *res, const stn_ooc_result *plan, stn_afile *report);
/* Whatever is left open, removed (temporaries unlinked; joined files closed). */
void stn_outputs_abort(stn_run *r, stn_afile *report);

/* ------------------------------------------------------------------ summary.c: what a run prints */

/* A warning for each out-of-core option an in-core (or mmap) run ignores. */
void stn_note_ignored(stn_run *r);
/* The program's lines on stderr (none with --quiet): the out-of-core plan once chosen (blocks, who
 * chose them, the DRAM against the budget, the predicted bytes and seconds), and at the end the
 * time, the rate, the bytes moved against the model's and the peak memory. */
void stn_summary_plan(const stn_run *r, const stn_result *res, const stn_ooc_result *plan);
void stn_summary_end(const stn_run *r, const stn_result *res);
/* The program's main only: on SIGINT or SIGTERM print what is left of the run (out of core: that
 * --resume continues it from the last committed sweep) and die of the signal as before; no handler
 * replaces an ignored signal.  disarm restores the previous handlers. */
void stn_interrupt_arm(const stn_run *r);
void stn_interrupt_disarm(void);

#endif /* STN_RUN_H */
