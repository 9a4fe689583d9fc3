/*
 * stn_run.h -- one run of a generated program: what it is given (stn_run) and what each engine gives
 * back (stn_result, and stn_ooc_result for the out-of-core plan).  Private to the runtime.
 *
 * The runtime's files in layers, one folder of runtime/src a layer, lowest first; a file calls only
 * into its own layer or lower ones (test/python/test_runtime_layers.py checks this on the object
 * files with nm; docs/design/020 draws it):
 *   1. base/     error, stats, alloc, mem (the memory policy), file, ring,  the pieces
 *                progress, hw, device (the flash device's curves), args,
 *                args_check (the line as a whole), usage (--help,
 *                suggestions), modes (the names of its choices), desc
 *                (the descriptor's checks), save (--save, --save-to), numa
 *                (threads and memory per node)
 *   2. io/       npy, gridio (grid files), aio (the libaio queue), probe,   files and the device
 *                probe_pmem (--tier pmem's curves), devfile (a machine file
 *                with the curves), checkpoint (a checkpoint's manifest),
 *                mapfile (--mode mmap's files), hdf5 (the snapshot file),
 *                h5data (HDF5 datasets as --init and --out), h5read (a
 *                --save-to file read back), h5watch (a watchdog over the
 *                ranks' collective close), pmem
 *                (--tier pmem's mapped files), gridchunks (grid files
 *                chunked along y), gridparts (a grid file in parts
 *                along y, one a directory), npyd (a --init .npy read
 *                with O_DIRECT)
 *   3. run/      log (warnings), fields, inputs (series, points, along),    what a run is given
 *                fold (a 1d grid's rows), offgrid (off-grid
 *                points' corners and weights)
 *   4. mpi/      par (the collectives), split (the ranks' parts), part      the ranks
 *                (a part's geometry), dense (a part in DRAM), ghosts
 *                (the exchanges)
 *   5. kernels/  step (the kernels' calls), rate (their rates)              the generated code
 *   6. plan/     iblock (Blk-Tune's step 1), ooc_plan (block geometry),    planning, no engine
 *                ooc_model (the exact IO model, the time model), tune
 *                (the tuners), tune_rate (a plan's measured rate), ranks
 *                (an MPI rank's plan), gpu_plan (the GPU tier's blocks, bt
 *                and bytes), gpu_wrap (its windows wrapped along a
 *                periodic axis), gpu_tiles (its blocks cut along y),
 *                layout (the scratch files' chunks), rate_history (the
 *                loops of earlier runs kept in the cache)
 *   7. engines/  engine (the engines' table: stn_engine.h), arrays (what    the engines
 *                they share); incore, mmap; gpu_sched (the GPU tier's
 *                schedule), gpu (--mode gpu, gpu-ooc); ooc/: ooc_api, ooc_sweep,
 *                ooc_reader, ooc_wedge, ooc_ghosts, ooc_setup, ooc_window,
 *                ooc_xfer, ooc_state, ooc_snap, ooc_refine, ooc_fit, ooc_history,
 *                ooc_chunks, ooc_inplace, ooc_dirs (--dir a,b)
 *   8. report/   report                                                     the JSON report
 *   9. program/  program (stn_program_main), sim (the embedding API, a run  the program
 *                held open), setup (a run around its engine), runfiles
 *                (the run's files), h5files (HDF5 --init and --out),
 *                summary (what a run prints)
 */
#ifndef STN_RUN_H
#define STN_RUN_H

#include "base/stn_internal.h"

/* ------------------------------------------------------------------ log.c: warnings */

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

/* ------------------------------------------------------------------ one run; fold.c, inputs.c */

/* A 1d grid folded into rows for the out-of-core engine (docs/design/014, "the fold"): cell i of
 * the n cells lies at i + P of a 2d grid of `rows` rows of W cells, stored contiguously (no row
 * padding: W x element is a multiple of the O_DIRECT alignment).  Row 0 holds the leading boundary
 * cells in its tail (P = W - h-), the interior starts at row 1, and the last row holds trailing
 * boundary cells (or none) and nothing of the interior.  The engine streams rows with a halo and a
 * skew of one row; the kernels see the 1d grid (stn_fold_map).  W = 0: not folded. */
typedef struct stn_fold {
    int64_t W, P, n, rows;
    int64_t lo, hi; /* the interior of the 1d grid: [lo, hi) = [h-, n - h+) */
} stn_fold;

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

/* What a run reads before its engine starts, once (run/inputs.c): the stencil's series, sets of points
 * and inputs along an axis, with the bytes of their files (the IO model counts them). */
typedef struct stn_inputs {
    double **series;       /* [nseries]: each series' values, as read from its --init file */
    int64_t *series_len;   /* [nseries] */
    uint64_t series_bytes; /* the data bytes of the series files */
    int64_t **pts;         /* [npointsets]: x, y, z of each point of each set */
    int64_t *npts;         /* [npointsets] (an off-grid set: its corner cells, corners[s] a point) */
    double **wts; /* [npointsets]: an off-grid set's corner weights, a point's corners in order; else NULL */
    int *corners; /* [npointsets]: 2^dims for an off-grid set, else 1 */
    uint64_t points_bytes; /* the data bytes of the points files */
    void **along;          /* [nalong]: each input along an axis, its axis' extent of elements */
    uint64_t along_bytes;  /* the data bytes of their files */
} stn_inputs;

/* The network between MPI ranks, measured at startup (stn_par_network), for the time model. */
typedef struct stn_net {
    double bytes_per_second, latency;
    char source[160];
} stn_net;

/* What a run is given: the program, its command line, the machine it plans for and the DRAM
 * budget.  program/setup.c sets it up; the engines read it, add warnings to `log` and fill the
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
    double t_start;           /* stn_program_main entered (stn_sim_open for a simulation) */
    double t_job; /* the job's start: the process's (the program), else t_start (stn_now's clock) */
    stn_log *log;
    stn_device dev;      /* --mode ooc: the device's bandwidth curves, for the time model */
    stn_inputs inputs;   /* the series, points and `along` arrays, read before the engine (run/inputs.c) */
    void **rec;          /* [nrecords]: steps x n samples of each record (row t: step t) */
    stn_fold fold;       /* the out-of-core engine's run of a 1d grid: its rows (W = 0 otherwise) */
    uint64_t npy_bounce; /* --mode ooc with --init files: the bounce they are read through with O_DIRECT
                          * (io/stn_npyd.h; 0: through the page cache), counted in `held` */
    uint64_t held; /* DRAM the run holds whole beside the engine's buffers, which its plan counts: a folded
                    * 1d grid's inputs along x, an MPI rank's ghosts in flight (stn_part.defer) */
    int in_place; /* ooc --tier pmem: the inputs a plan that allows it reads in place (their rings left out of
                   * its DRAM; set by stn_ooc_choose from the model's choice, 0 elsewhere) */
    const struct stn_part *part; /* MPI: this rank's part of the grid (mpi/stn_part.h); NULL: all of it */
    stn_net net;                 /* MPI: the network, measured at startup (stn_par_network) */
    struct stn_h5 *snap;         /* --save-to: the snapshot file (io/stn_hdf5.h); NULL: none */
    struct stn_h5files *h5files; /* HDF5 datasets among --init and --out (program/h5files.c); NULL: none */
} stn_run;

/* A run's copy on a rank's part (MPI, mpi/stn_part.h) or a 1d grid's rows: its own options, descriptor
 * and name, run.o and run.d pointing at them. */
typedef struct stn_run_copy {
    stn_run run;
    stn_opts opts;
    stn_program_desc desc;
    char name[256];         /* NAME.rK: a rank's files */
    stn_field_desc *fields; /* along rings: no field wraps a ring's axis in the part (NULL: d's) */
    struct stn_part *part;  /* the part run.part points at (NULL: none) */
} stn_run_copy;
/* r's 1d grid folded into rows (docs/design/014) for O_DIRECT rows of `align` bytes, or, periodic,
 * as one row that is one block (--block BX,BT refused); c->fields owned by c. */
int stn_fold_run(const stn_run *r, size_t align, stn_run_copy *c);
/* What a copy owns, freed (c itself is the caller's; NULL is fine). */
void stn_run_copy_free(stn_run_copy *c);
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
/* Off-grid points (run/offgrid.c): set s's n points (raw, n x dims coordinates) turned into their corner
 * cells (pts[s], npts[s] = n 2^dims) and weights (wts[s]); an error names a point whose corners leave the
 * interior.  A record's points (its output's columns: a set's points, not their corners); its samples
 * (steps x npts) summed over each point's corners, weight x sample in corner order, in place into
 * (steps x points) -- once, when the outputs are written. */
int stn_offgrid_expand(stn_run *r, int s, const double *raw, int64_t n);
int64_t stn_record_points(const stn_run *r, int k);
void stn_record_combine(const stn_run *r, int k);

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
    double total;          /* import + sweeps + export */
    double compute;        /* the kernels alone (with init) */
    double init;           /* of which the init expressions' values, computed in the first sweep */
    double io;             /* the asynchronous reads and writes alone (the device busy) */
    double npy;            /* --init reads (synchronous, first sweep) */
    double fill;           /* the first block of each row read, and its last written, with no overlap */
    double xfer;           /* the import of inputs and the export of --out */
    double copy;           /* the z-strip kept in DRAM: its rows copied out of the ring and back */
    uint64_t copy_bytes;   /* those copies' bytes (stn_result.strip_copied counts the run's) */
    uint64_t request;      /* the size of a block's requests */
    double exchange;       /* MPI: the ghosts' exchanges between sweeps, their file IO and messages */
    double messages;       /* of which the messages (bytes over the bandwidth, a latency each) */
    double snap;           /* the snapshots' writes (--save-to), the device busy: part of the sweeps' time */
    double remove;         /* the scratch files removed at the end (remove_bytes at the device's
                            * remove_seconds_per_gib; 0 where that was not measured): not in total, in the
                            * job's prediction (startup + total + remove) */
    uint64_t remove_bytes; /* the bytes written to them (stn_ooc_scratch_bytes) */
    double startup; /* the job's seconds before the plan's loop, measured when the prediction was made (the
                     * device's calibration, the tuner's measurements): not in total; the job's prediction
                     * is startup + total */
} stn_time_pred;

/* A re-plan between two sweeps (out of core, ooc_refine.c). */
#define STN_MAX_REPLANS 16
typedef struct stn_replan {
    int64_t step, sweep;              /* before this step and sweep (the steps and sweeps done) */
    int64_t from[3], to[3];           /* the blocks: by, bz (-1 in 2d), bt */
    int from_strip, to_strip;         /* STN_STRIP_* */
    double cells_per_second;          /* the kernels' rate measured on the sweep before (alone) */
    double device_scale;              /* the device's curves times this fit that sweep's time */
    double keep_seconds, new_seconds; /* the steps left, predicted with the plan before and after */
} stn_replan;

/* The rates of a rate measurement's rounds alone (plan/tune_rate.c) and the plan they timed: the tuner keeps
 * its chosen plan's, and that plan's second measurement, under IO at startup (ooc_setup.c, plan_share), takes
 * the median of theirs and its own, a second apart, so that one slow or fast spell of the machine makes
 * half the rounds at most. */
#define STN_RATE_POOL 64
typedef struct stn_rate_rounds {
    int64_t plan[5]; /* r's axis, r's block, q's block, bt, strip */
    int n;
    double cps[STN_RATE_POOL];
} stn_rate_rounds;

/* What every engine gives back. */
typedef struct stn_result {
    stn_stats st;
    uint64_t predicted_read, predicted_written; /* the engine's IO model */
    double loop_seconds;                        /* the time loop alone */
    double import_seconds; /* reading the .npy inputs (--init, series, points, along); ooc: overlapped */
    uint64_t
        init_direct_bytes; /* ooc: the --init bytes read with O_DIRECT (io/stn_npyd.h; added atomically) */
    double export_seconds; /* writing and syncing the --out files after the loop */
    double
        remove_seconds; /* out of core: the scratch files removed and the engine's buffers freed at the end */
    stn_req_sizes req_sizes; /* ooc: the sizes of the aio requests its queue made (reads and writes) */
    int nreplans;            /* ooc: the re-plans between sweeps, in order */
    stn_replan replans[STN_MAX_REPLANS];
    uint64_t engine_bytes; /* peak of stn_alloc during the run */
    uint64_t peak_pss;     /* highest stn_pss_bytes() sampled during the run (ooc: after each sweep) */
    uint64_t pss_at_open;  /* stn_pss_bytes() just before the engine opened: the program, its libraries,
                            * its threads and inputs -- what the budget does not cover */
    stn_iblock_pick ib;
    int have_paging;                      /* --mode mmap: the kernel's paging traffic was measured */
    uint64_t paging_read, paging_written; /* storage bytes read / written back during the time loop */
    int have_time;                        /* ooc: the time model ran */
    stn_time_pred time;
    int64_t time_tiles[3];        /* in-core: the temporal tiles by, bz, bt (bt 0: the plain loop) */
    char tiles_source[320];       /* in-core: how they were chosen, or why there are none */
    double cells_per_second;      /* ooc: the kernels' rate the time model used */
    char rate_source[512];        /* and where it came from */
    int rate_runs;                /* ooc: > 0: the median of that many earlier runs' loops (ooc_history.c) */
    int rate_bias_runs;           /* ooc: > 0: the startup's, scaled by that many runs' on this machine */
    stn_rate_rounds rate_rounds;  /* ooc: the tuner's rounds on the plan it chose (n = 0: none) */
    double compute_share;         /* ooc: the plan's own share of its kernels' rate under IO, measured at
                                   * startup (stn_ooc_block_rate_under; 0: not measured, the device's) */
    char share_source[256];       /* why it was not measured ("" when it was: rate_source says how) */
    double copy_bytes_per_second; /* ooc: DRAM copy rate the time model used (0: not modelled) */
    char copy_source[160];        /* and where it came from */
    uint64_t strip_copied;        /* ooc: bytes the z-strip in DRAM copied (out of the ring and back) */
    uint64_t msg_sent;            /* MPI: bytes this rank sent its neighbours (the ghosts' exchanges) */
    uint64_t msg_predicted;       /* and what the model says they are */
    int dims[3];                  /* MPI: the ranks along x, y and z (docs/design/019) */
    int overlapped;               /* MPI, ooc: the exchanges' way down ran beside the next sweep */
    stn_numa numa;                /* where the threads and buffers were placed (engines/engine.c) */
    uint64_t mapped_bytes;        /* ooc --tier pmem: the bytes of the scratch files mapped by libpmem */
    int is_pmem;                  /* and whether libpmem found every mapping persistent memory */
    uint64_t read_in_place; /* ooc --tier pmem: bytes of inputs the kernels read in the mapping, not copied */
    uint64_t predicted_in_place; /* and what the model says they are */
    uint64_t in_place_dram;      /* the rings those inputs do not have: DRAM left out of the first plan */
    int scratch_chunked;         /* out of core: some scratch file chunked along y (docs/design/023) */
    struct {                     /* --mode gpu / gpu-ooc (engines/gpu.c), the sums over its advances: */
        int have;                /* the GPU engine ran */
        uint64_t h2d, d2h;       /* bytes copied host to device and back, counted at each copy */
        uint64_t predicted_h2d, predicted_d2h; /* and what the plans predict (plan/stn_gpu.h) */
        int64_t bz, bt, nblocks;               /* the last plan's blocks (planes), steps per sweep, blocks */
        int64_t by, ytiles;                    /* its tiles along y: rows (0: whole planes), tiles a block */
        int streams;                           /* its streams */
        uint64_t dev_bytes;                    /* its device memory (slots and inputs along an axis) */
        uint64_t pinned_bytes; /* the pinned host memory the engine holds (the grid's host copies) */
        uint64_t gpu_mem;      /* the device budget it planned for (--gpu-mem, else the free memory) */
        int device, devices;   /* the device it ran on (-1: none chosen) and the devices on its machine */
    } gpu;
    int nranks;      /* MPI, rank 0 after the run: the ranks' figures (the fields above are */
    uint64_t *ranks; /* their sums): STN_RANK_FIGURES each, read, written, predicted read and
                      * written, message bytes sent and predicted, 1 + its NUMA node's os_index
                      * (0: not placed, stn_numa_place_rank), 1 + its --dir list entry (0: one
                      * --dir) and how its node was chosen (STN_NUMA_BY_*, 0: not placed); the GPU
                      * modes: 0 (none), else 2 + its device (1: none chosen), its bytes up, predicted,
                      * down, predicted */
} stn_result;
#define STN_RANK_FIGURES 14
#define STN_RANK_GPU 9  /* (the GPU figures) */
#define STN_RANK_NODE 6 /* (the figures after the counters) */

/* What the out-of-core engine adds: its plan and how it was chosen. */
/* A plan Blk-Tune measured before choosing (stn_ooc_choose). */
typedef struct stn_ooc_finalist {
    int64_t blk[3];          /* by, bz, bt (bz -1 in 2d) */
    int strip;               /* STN_STRIP_* */
    double cells_per_second; /* the kernels' rate it was ranked with (plan/rate_history.c) */
    double seconds;          /* its predicted time with that rate */
    uint64_t bytes;          /* its predicted bytes */
    double sample;           /* the kernels' rate measured on its blocks at startup */
    int loops;               /* the earlier runs' loops of its plan that gave cells_per_second (0: none) */
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

/* ------------------------------------------------------------------ fields.c: what the fields add up to */

/* Arrays a step touches: levels + 1 per state field, 1 per input (the k of eqs. 1a and 2e). */
uint64_t stn_total_arrays(const stn_program_desc *d);
/* The levels of all state fields: what an MPI exchange moves (ghosts of each). */
uint64_t stn_state_levels(const stn_program_desc *d);
/* The memory the step allocates on all threads on a grid of nx x ny x nz cells (sub-steps' scratch;
 * the bound is symmetric in ny and nz, so a plan may give its two blocked axes in its own order). */
uint64_t stn_kernel_scratch(const stn_program_desc *d, int64_t nx, int64_t ny, int64_t nz);
#endif /* STN_RUN_H */
