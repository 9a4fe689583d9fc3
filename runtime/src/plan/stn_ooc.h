/*
 * stn_ooc.h -- the out-of-core plan: block geometry, the DRAM it needs, and its exact IO model
 * (ooc_plan.c); the tuners that choose a plan (tune.c).  Pure functions of the program, the grid
 * and the budget: no engine, no file, no allocation.  Private to the runtime.
 *
 * Blocks are tiles of two blocked dimensions.  `r` is the dimension the DRAM window slides along
 * as a ring (blocks within a row); `q` is the dimension of the rows of blocks.  Whole planes
 * (3d, by = ny): r = z, q = y with one block.  2d: r = y, q = z (n = 1).  y-blocked 3d
 * (by < ny): r = y, q = z; each z-row of blocks keeps a y-ring per plane, and the planes the
 * next z-row shares with this one (the z-strip) are kept in DRAM or spilled to a file.
 * docs/out-of-core.md is the long form.
 */
#ifndef STN_OOC_H
#define STN_OOC_H

#include "kernels/stn_kernels.h"

/* ------------------------------------------------------------------ ooc_plan.c: geometry */

/* One blocked dimension. */
typedef struct stn_ooc_dim {
    int axis;               /* 0 x, 1 y, 2 z */
    int64_t n;              /* its extent */
    int64_t hlo, hhi;       /* its halo: the boundary layer below L and from H */
    int64_t rlo, rhi, skew; /* how far a step reads (>= the halo) and the skew s = max(rlo, rhi) */
    int64_t L, H;           /* its interior [L, H) */
    int64_t b, nblocks;     /* block width, blocks */
    int wrap;               /* the fields wrap around this dimension in sweeps of T > 1 steps: the
                             * wedge (stn_ooc_edge, docs/out-of-core.md#periodic-boundaries) */
} stn_ooc_dim;

/* y-blocked tiles at least this many bytes of rows per plane: one efficient IO request */
#define STN_TUNE_MIN_REQUEST ((int64_t)64 << 10)

typedef struct stn_ooc_plan {
    int schedule;           /* STN_SCHED_REF, _ALG1 or _ALG2: their windows differ */
    int strip;              /* STN_STRIP_*: where the z-strip goes (y-blocked only) */
    stn_ooc_dim r, q;       /* the ring's dimension, the rows' dimension */
    int64_t bt;             /* steps per sweep */
    int64_t steps, nsweeps; /* the run: ceil(steps / bt) sweeps, the last maybe shorter */
    size_t align;           /* O_DIRECT alignment rows are padded to */
    int64_t row_bytes;      /* a padded x-row */
    uint64_t grid_bytes;    /* one level of one field, padded rows (a scratch file) */
    uint64_t npy_bytes;     /* one level of one field as a .npy array: nx * ny * nz * element */
    uint64_t out_bytes;     /* what an --out writes of one level: npy_bytes, a rank's own part under MPI */
    uint64_t slice_bytes;   /* one slice of r: ny rows (whole planes) or one row */
    int64_t ring_slices;    /* C: slices per ring (slice r lives at r mod C) */
    uint64_t ring_bytes;    /* one ring: ring_slices x slice_bytes, a whole number of pages */
    int64_t qplanes;        /* ring planes per array (q rows held at once: 1 unless y-blocked) */
    int64_t qcap;           /* q indices the ring holds at once (q.n unless y-blocked) */
    int64_t strip_planes;   /* z-planes carried from one z-row of blocks to the next (y-blocked) */
    uint64_t mem_bytes;     /* every buffer the engine allocates for this plan */
    int64_t nx;             /* the grid's x extent */
    stn_fold fold;          /* a 1d grid folded into rows (W = 0: not): .npy bytes are its cells' */
    uint64_t held;          /* DRAM the run holds beside the engine's buffers (stn_run.held): in mem_bytes */
    int in_place_ok;        /* imported inputs may be read in place on this plan (--tier pmem): no z-strip, no
                             * wrap, not alg2, not periodic along r (the file's slices lie as the window's) */
    int in_place; /* the inputs read in place: no ring of their own, not in mem_bytes (0 unless ok) */
} stn_ooc_plan;

/* What a plan is asked for: the program, the grid and its steps, the schedule, the blocks by x bz and
 * bt steps, where a y-blocked plan's z-strip goes, the O_DIRECT alignment rows are padded to, and what
 * the run holds beside the engine's buffers. */
typedef struct stn_plan_request {
    const stn_program_desc *d;
    int64_t size[3]; /* nx, ny, nz (nz = 1 in 2d) */
    int64_t steps;
    int schedule;       /* STN_SCHED_*; < 0: ref */
    int64_t by, bz, bt; /* by >= ny (3d), or any by in 2d (bz ignored there): whole planes */
    int strip;          /* STN_STRIP_DRAM or _FILE for by < ny (ignored otherwise) */
    size_t align;
    const stn_fold *fold; /* a 1d grid folded into rows, or NULL */
    uint64_t held;        /* stn_run.held */
    int in_place;         /* stn_run.in_place: the inputs a plan that allows it reads in place */
} stn_plan_request;

/* Fill `p` for the request q (no feasibility check). */
int stn_ooc_make_plan(const stn_plan_request *q, stn_ooc_plan *p);

/* Whether sweeps of several steps can wrap d around the dimension whole planes (2d: rows) stream
 * along, the wedge: every state field periodic along it, and neumann or periodic along the
 * others (a dirichlet face's cells are in every level array); no input field read at an offset
 * along it (its boundary cells are its own, not the far side: read_across), no `along` input
 * along it and no sub-steps (the wedge's last block computes under indices past H; stn_step
 * moves points there). */
int stn_ooc_wedge_ok(const stn_program_desc *d);
/* The slices of level l (0 <= l < T) of a field of `levels` levels that the last block of a
 * wrapped sweep of T steps reads past H without computing them or reading them from a file:
 * [lo, hi), where the other blocks compute them (level 0: read them); kept for it in DRAM. */
void stn_ooc_wedge_range(const stn_ooc_dim *g, int levels, int64_t T, int64_t l, int64_t *lo, int64_t *hi);
/* The same for an input field (read at its own cell along r): the slices past n the last block
 * reads of it. */
void stn_ooc_wedge_input_range(const stn_ooc_dim *g, int64_t T, int64_t *lo, int64_t *hi);
/* The axes (bit d: axis d) along which some state field of d is periodic. */
int stn_ooc_periodic_axes(const stn_program_desc *d);
/* NULL when plan p can run d's periodic boundaries; else why not, in buf.  Along the dimension the
 * window streams (z of whole planes, y in 2d) a sweep wraps one step (bt = 1: its wrap-around
 * planes come from the source file set, which no block writes; not alg2, which has none);
 * y-blocked tiles wrap neither y nor z; x, and y of whole planes, always. */
const char *stn_ooc_periodic_refusal(const stn_program_desc *d, const stn_ooc_plan *p, char *buf, size_t n);

/* A lower bound on the DRAM (mem_bytes) of p and of every plan that differs from p only in a wider
 * searched block (bz y-blocked or with whole planes in 3d, by in 2d) and, y-blocked, in a ring
 * of at least `min_ring` slices: the ring (or, y-blocked, its planes) holds block 0's window,
 * [0, A(1,1) + h+), which grows with the block.  DRAM itself need not grow with the block (the
 * last block's window can shrink as the others grow), so the tuners stop on this instead. */
uint64_t stn_ooc_mem_floor(const stn_program_desc *d, const stn_ooc_plan *p, int64_t min_ring);
/* The extent of block 0's window in dimension g for blocks of b: grows with b. */
int64_t stn_ooc_window0(const stn_ooc_dim *g, int64_t b);
/* A lower bound on p's ring_slices were its r blocks b wide (and on any wider): block 0's window,
 * rounded like the ring. */
int64_t stn_ooc_ring_floor(const stn_ooc_plan *p, int64_t b);

/* ------------------------------------------------------------------ layout.c: the scratch layout */

/* STENCILC_SCRATCH_LAYOUT=plain: every scratch file in the plain layout (a measurement knob,
 * docs/out-of-core.md). */
int stn_scratch_layout_plain(void);
/* Whether p's scratch files (and its z-strip's spill files) are chunked along y: y-blocked 3d (2d: one
 * plane, where the chunks would only cut its spans), not alg2
 * (whose in-place files are read and written by the same sweep), and the knob not `plain`. */
int stn_ooc_chunked(const stn_ooc_plan *p);
/* The inner chunk edges (sorted, in (0, r.n)) of a file that a sweep of Tw steps writes and a sweep of Tr
 * steps reads, both with plan p (0: that side not counted): every edge of the blocks' writes
 * (stn_ooc_out_range) and reads (the window's new slices), so that each is whole chunks wide.  `strip`:
 * the z-strip's spill file instead (saves from each window's start, restores its new slices; Tr steps).
 * At most max edges in e; returns their number, 0 when p is not chunked, -1 when they are more than max. */
int stn_ooc_chunk_edges(const stn_ooc_plan *p, int64_t Tw, int64_t Tr, int strip, int64_t *e, int max);
/* The most chunks a scratch file gets (more: the plain layout; a grid of more than ~1000 y-blocks). */
#define STN_OOC_MAX_CHUNKS 4096

/* Steps in sweep s: bt, except a shorter last sweep when bt does not divide the steps. */
int64_t stn_ooc_sweep_steps(const stn_ooc_plan *p, int64_t s);

/* Ranges of dimension g for block k in a sweep of T steps, t = 1..T; all half-open [lo, hi).
 *   edge:   A(k, t), the lower edge of block k's region at step t.
 *   window: the indices block k holds in DRAM during the sweep.
 *   owned:  the indices block k owns at step t: its region, plus the boundary indices below L if
 *           the region holds L and those from H up if it holds H-1 (boundary cells follow the skew
 *           like the interior next to them); at t = T, what the reference schedule writes out.
 *   step:   what block k computes at step t (alg1: widened by (T-t)s on each side, redundantly).
 *   out:    what block k writes at the end of a sweep (alg1: its own indices [Z_k, Z_k+1)).
 *   alg2:   what alg2 writes back: every slice block k changed at any step, [A(k,T), A(k+1,1)).
 *   read:   what a step computing [a, b) reads, with the mirror sources of boundary indices, within
 *           [wlo, whi): where a neumann field must be mirrored (stn_ooc_read_of).
 *   strip:  the z-planes row k passes to row k+1 (empty for the last row and without a strip). */
int64_t stn_ooc_edge(const stn_ooc_dim *g, int64_t k, int64_t t);
void stn_ooc_window(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo,
                    int64_t *hi);
void stn_ooc_owned_range(const stn_ooc_dim *g, int64_t k, int64_t t, int64_t *lo, int64_t *hi);
void stn_ooc_step_range(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t t, int64_t T,
                        int64_t *lo, int64_t *hi);
void stn_ooc_out_range(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo,
                       int64_t *hi);
void stn_ooc_alg2_range(const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo, int64_t *hi);
void stn_ooc_strip_range(const stn_ooc_plan *p, int64_t k, int64_t T, int64_t *lo, int64_t *hi);
/* `read` for a computed range [a, b) of dimension g (a block's, or a cache tile's in it). */
void stn_ooc_read_of(const stn_ooc_dim *g, int64_t a, int64_t b, int64_t wlo, int64_t whi, int64_t *lo,
                     int64_t *hi);
/* The edges of cache tile i of m, `w` wide, inside block k of g, whose step t computes [a, b):
 * Z_k + i w - s (t - 1), clipped to [a, b] (the block's own skew, finer); i = 0 and m give a, b. */
int64_t stn_ooc_sub_edge(const stn_ooc_dim *g, int64_t k, int64_t i, int64_t m, int64_t w, int64_t t,
                         int64_t a, int64_t b);
/* The cache tiles of width w a block k of g is cut into (at least 1). */
int64_t stn_ooc_sub_count(const stn_ooc_dim *g, int64_t k, int64_t w);

/* ------------------------------------------------------------------ ooc_plan.c: the IO model */

/* Where the values of one (field, level) come from at the start of the first sweep. */
enum { STN_SRC_SCRATCH = 0, STN_SRC_NPY, STN_SRC_INIT, STN_SRC_ZERO, STN_SRC_COPY /* prev = current */ };

/* What the model must know of one field besides the plan: its arrays and its data's sources. */
typedef struct stn_ooc_fsrc {
    int state, levels, narr; /* narr: arrays in the window (levels + 1 for state, 1 for inputs) */
    int first[2];            /* STN_SRC_* of level 0 and level -1 at the first sweep */
    int input;               /* inputs: STN_SRC_SCRATCH (imported from --init), _INIT or _ZERO */
    int out[2];              /* --out writes level 0 / the previous level */
    int written;             /* an input of init or zero that a simulation wrote: now in its scratch file */
    int in_place;            /* an imported input the kernels may read where it lies (--tier pmem's mapping,
                              * docs/design/022): on a plan stn_ooc_reads_in_place accepts, never copied */
} stn_ooc_fsrc;

/* The fields' sources: what decides the bytes a plan moves, besides the plan. */
typedef struct stn_ooc_model {
    int nfields;
    const stn_ooc_fsrc *f;
    int imported; /* the inputs are in their scratch files even before a sweep (a simulation held open) */
} stn_ooc_model;

/* The sources of field i from the descriptor and the --init / --out paths ([2 * nfields] each,
 * NULL: none). */
void stn_ooc_fsrc_init(const stn_program_desc *d, int i, const char *const *init_path,
                       const char *const *out_path, stn_ooc_fsrc *f);
/* Where (field, level) comes from in sweep `sweep`; sweep == p->nsweeps is the final export.
 * The engine and the model both ask this, so they cannot disagree about what moves. */
int stn_ooc_source_of(const stn_ooc_model *m, const stn_ooc_plan *p, int f, int level, int64_t sweep);
/* Every byte the run will read and write, from the plan and the sources alone: sweeps
 * first_sweep..nsweeps-1, the import of input files (first sweep only) and the export of each
 * --out.  Costs one pass over the blocks of three sweeps, whatever the steps. */
void stn_ooc_predict(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t first_sweep, uint64_t *rd,
                     uint64_t *wr);
/* The import before the first sweep (the input files into scratch; alg2: every array of the state
 * into its in-place files), added to *rd and *wr. */
void stn_ooc_predict_import(const stn_ooc_model *m, const stn_ooc_plan *p, uint64_t *rd, uint64_t *wr);
/* The bytes sweep s moves when it runs T steps (a simulation's sweeps are cut by its advances), added
 * to *rd and *wr. */
/* Field f is read in place on plan p: an imported input marked in_place, a plan whose in_place_ok is set (no
 * z-strip: whole planes in 3d, every 2d plan; no wrap; not alg2; not periodic along r: the file's slices then
 * lie as the window's, and the kernels read the mapping as they would the ring). */
int stn_ooc_reads_in_place(const stn_ooc_model *m, const stn_ooc_plan *p, int f);
/* The bytes a sweep of p reads in place (not copied, so not in stn_ooc_predict's reads): its in-place inputs.
 */
uint64_t stn_ooc_in_place_sweep(const stn_ooc_model *m, const stn_ooc_plan *p);
/* The inputs marked in_place (m NULL: 0): what a plan request's in_place says. */
int stn_ooc_in_place_inputs(const stn_ooc_model *m);
void stn_ooc_predict_sweep(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s, int64_t T, uint64_t *rd,
                           uint64_t *wr);
/* The bytes of scratch file a run of p has written when it ends, which its removal frees: each state
 * field's levels in the sets the sweeps wrote (sweep s writes set (s + 1) % 2: one set after one sweep, both
 * after two; alg2 its arrays in place), each imported input's file, and the z-strip's spill files
 * (strip_planes planes of every array, written at each row of blocks' end). */
uint64_t stn_ooc_scratch_bytes(const stn_ooc_model *m, const stn_ooc_plan *p);

/* ------------------------------------------------------------------ ooc_plan.c: the time model */

/* One exchange of plan p with ghosts of bt steps: the bytes read from (and as many written to) the
 * part's files, the message bytes sent, and the messages. */
void stn_ooc_exchange(const stn_xchg_model *x, const stn_ooc_plan *p, int64_t bt, uint64_t *io, uint64_t *msg,
                      uint64_t *nmsg);

/* What the time model needs besides the plan and the sources. */
typedef struct stn_time_model {
    const stn_device *dev;        /* the device's bandwidth curves */
    double cells_per_second;      /* the kernels' rate on a block's window */
    double cells;                 /* cells a step updates: nx * ny * nz */
    double copy_bytes_per_second; /* DRAM to DRAM, all threads (0: the strip copies not modelled) */
    int depth;                    /* the IO queue's depth */
    uint64_t max_request;         /* its largest request */
    const stn_xchg_model *xm;     /* MPI: the ghosts' exchanges between sweeps (NULL: none) */
    int64_t ghost_bt;             /* their depth in steps (0: the plan's bt, as the tuner weighs plans) */
    double snap_bytes_per_step;   /* --save-to: the snapshots' bytes written a step, on average (0: none) */
    double init_seconds;          /* the state's initial values computed from the .stn's init expressions (the
                                   * first sweep places them as it goes: the kernels' time of sweep 0) */
    double input_init_seconds;    /* the inputs' values from their init expressions: every sweep */
    double compute_share;         /* the plan's own share of the kernels' rate under IO, measured at startup
                                   * (0: the device's, stn_dev_compute_share at the request size) */
} stn_time_model;

/* Seconds, beside the exact bytes of stn_ooc_predict.  Per sweep: the device is busy for D
 * seconds alone (reads of block j+1, from scratch files or --init files, and writes of j-1: they
 * share the device) and the kernels need C seconds alone (with the copies of a z-strip kept in
 * DRAM, at copy_bytes_per_second); they run together, each slowed by the other while both run:
 * the kernels keep the share f = stn_dev_compute_share(dev, request) of their speed, the device the share
 * g = stn_dev_io_share(dev, request) of its bandwidth, at the plan's request size.  If the kernels end first
 * (C/f <= D/g), the sweep takes D + (1 - g) C/f, else C + (1 - f) D/g (with f = g = 1: max(C, D)); plus one
 * block's reads and writes per row of blocks that nothing overlaps.  D is bytes over the device curves'
 * bandwidth at the plan's request size and the queue's depth: reads and writes paired on the mixed curve
 * (mixed_new for the sweeps that write into new scratch files, the first two), the rest on the read or write
 * curve (--init reads: depth 1); without a mixed curve, reads and writes one after the other.  Under MPI
 * (tm->xm) each exchange between sweeps adds its file IO (the device alone, paired reads and writes),
 * its message bytes over the network's bandwidth and a latency per message (stn_ooc_exchange).  The
 * snapshots (tm->snap_bytes_per_step, --save-to) are written as the sweep computes its steps: a sweep of T
 * steps writes T times that rate on the write curve at the largest request, which the device's D includes
 * (out->snap: their seconds).  Not modelled: fdatasync, page-cache effects, libhdf5's gathering. */
void stn_ooc_predict_time(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t first_sweep,
                          const stn_time_model *tm, stn_time_pred *out);
/* The size of plan p's requests as the time model weighs them (a block's run along the file, at most
 * max_request): what the device curves and the shares under compute are read at. */
uint64_t stn_ooc_request_bytes(const stn_ooc_plan *p, uint64_t max_request);

/* ------------------------------------------------------------------ tune.c: choosing a plan */

/* A problem for the tuners: the program, the grid, the sources and the budget. */
typedef struct stn_tune_problem {
    const stn_program_desc *d;
    const stn_ooc_model *m;
    const stn_fold *fold; /* a 1d grid folded into rows, or NULL */
    int64_t size[3];      /* nx, ny, nz (nz = 1 in 2d) */
    int64_t steps;
    int schedule; /* STN_SCHED_REF, _ALG1 or _ALG2 */
    int strip;    /* -1: the tuner weighs both; STN_STRIP_DRAM or _FILE: only that one; _NONE: whole planes
                   * only (an MPI rank's slab) */
    size_t align; /* the O_DIRECT alignment rows are padded to */
    uint64_t budget;
    int64_t iy;               /* the iBlock's iy: y-blocks are multiples of it (<= 1: any) */
    int64_t depth;            /* one thread's tile depth (iz / Nc in 3d, iy / Nc in 2d): the searched block
                               * (bz in 3d, by in 2d) is a multiple of it, unless nothing of that kind fits */
    const stn_time_model *tm; /* NULL: the tuners minimise bytes; else predicted seconds
                               * (stn_ooc_predict_time), plans within STN_TUNE_TIE of each other
                               * going to fewer bytes */
    uint64_t held;            /* DRAM the run holds beside the engine's buffers (stn_run.held) */
} stn_tune_problem;

/* Predicted times this close (relative) are a tie, decided by bytes: the model is not finer. */
#define STN_TUNE_TIE 0.01
/* The same for finalists predicted with rates measured on their blocks, which vary more. */
#define STN_TUNE_MEASURED_TIE 0.05

typedef struct stn_tune_result {
    stn_ooc_plan plan;
    uint64_t cost;       /* predicted bytes read + written */
    double time;         /* predicted seconds (with a time model) */
    stn_ooc_plan alt[3]; /* with a time model: the least time of whole planes and of y-blocked tiles,
                          * and the fewest bytes, where there are such plans */
    int nalt;
    int64_t weighed; /* plans evaluated */
    double seconds;
    int relaxed; /* the plan's searched block is not whole tiles (the budget fits none) */
} stn_tune_result;

/* Run tuner STN_TUNER_BLK, _NAIVE or _BRUTE: 0, or -ENOMEM when no plan fits (no message). */
int stn_tune(const stn_tune_problem *t, int tuner, stn_tune_result *out);
/* The smallest plan there is (for the message when nothing fits): 1 x 1 tiles with the strip
 * spilled (unless `strip` is STN_STRIP_DRAM), or one slice where only whole planes are allowed;
 * bt = 1. */
void stn_tune_smallest(const stn_tune_problem *t, stn_ooc_plan *p);

/* The kernels' rate on blocks of plan p (its window: the block, its bt steps' skew and the halo;
 * the engine's skewed steps in it, with the iBlock `tile`), after one block to warm up, for 1% of
 * the run's kernel time at the rate measured so far, from 80 to 300 ms, the median round's rate; x narrowed
 * so that the arrays take at most the larger of STN_RATE_MAX_BYTES and 4 x the last-level cache, and the
 * budget. `source` says how; `rounds` (NULL: not kept) receives the rounds' rates alone and the plan. 0 or
 * -ENOMEM. */
int stn_ooc_block_rate(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2], double *cps,
                       stn_rate_rounds *rounds, char *source, size_t n);
/* The same, and with a load (io/stn_probe.h; NULL: as stn_ooc_block_rate) as many rounds again under IO,
 * alternating with the others, the load serviced between steps as the engine polls its queue: *share, the
 * median round's rate under IO over the rate alone in [0.05, 1] (the plan's own compute_under_io, which the
 * time model uses for it; 0 without a load); load_how names the load in `source`.  With a load each kind runs
 * for the whole of the rate's usual time.  `prior`'s rounds (NULL or n = 0: none; another plan's: ignored),
 * an earlier measurement's of the same plan, join this one's alone in *cps's median (the share is this one's
 * alone).  Errors: the kernels', the load's. */
struct stn_io_load;
/* The DRAM the arrays of stn_ooc_block_rate's window for plan p take: their rows' pages (what the load's
 * buffers must fit beside). */
uint64_t stn_ooc_rate_bytes(const stn_run *r, const stn_ooc_plan *p);
int stn_ooc_block_rate_under(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2],
                             struct stn_io_load *load, const char *load_how, const stn_rate_rounds *prior,
                             double *cps, double *share, stn_rate_rounds *rounds, char *source, size_t n);

/* A plan saved in the state file of an interrupted run (ooc_state.c): --resume goes on with it. */
typedef struct stn_saved_plan {
    int64_t by, bz, bt;
    int strip;
} stn_saved_plan;

/* The run's plan: on --resume the saved plan, else the built-in blocks when they apply and fit,
 * else --block, else the tuner (--tuner, default blk), which ranks plans by predicted time (the
 * kernels' rate measured now, or the --machine file's, with the run's device curves); and the
 * iBlock that goes with it (step 1).  Fills res's chooser and tuner figures, and out's iBlock and
 * rate when it measured one; adds warnings to the run's log.  On failure the message gives the
 * smallest budget that works. */
int stn_ooc_choose(const stn_run *r, const stn_ooc_model *m, size_t align, const stn_saved_plan *saved,
                   stn_ooc_plan *p, stn_ooc_result *res, stn_result *out);

/* ------------------------------------------------------------------ iblock.c: Blk-Tune's step 1 */

/* The temporal (cache) tiles' window, for in-core tiles and the cache tiles of out-of-core blocks
 * alike: the window of a tile for bt steps, (width + 2 s bt) rows on a side (one side in 2d, two
 * in 3d), of `arrays` arrays of rows of `row_bytes`, fills the last-level cache (L3 of a socket,
 * else the cores' L2), the skew taking half the side, bt at most 16.  On the 2-core VM
 * (L3 32 MiB) heat3d 512^3 in-core ran at 1.45-1.50e9 cells/s untiled, 2.33-2.45e9 with half
 * the cache and bt 8, 2.75e9 with all of it and bt 16 (32 x 32 tiles; 40 x 40: 2.61e9, 56 x 56:
 * 2.16e9, 100 x 100 x 8: 1.70e9). */
typedef struct stn_time_window_t {
    uint64_t cache;    /* the cache it fills, bytes */
    uint64_t reported; /* the last-level cache hwloc reports (more than `cache` where that is a host's) */
    int64_t skew;      /* the skew it was sized for (at least 1) */
    double rows;       /* rows of the whole window */
    double side;       /* rows on one side */
    int64_t bt;        /* steps (may be below 2: no tile pays) */
    int64_t width;     /* the tile's own width on a side (may be below 1: none fits) */
} stn_time_window_t;
void stn_time_window(const stn_hw *hw, uint64_t row_bytes, uint64_t arrays, int64_t skew, int two_dims,
                     stn_time_window_t *w);
/* The cache w fills, in words for a source: "the last-level cache (N bytes)", or its share of a host's. */
void stn_time_window_cache(const stn_time_window_t *w, int64_t cores, char *out, size_t n);
/* The cache tiles the engine cuts plan p's blocks into (its compute_block): --time-tiles by,bz,bt, else
 * stn_time_window's for `arrays` arrays, as in-core: a thin block (y-blocked) is one tile across and cut
 * along q only.  w: the r and q widths (INT64_MAX / 4: uncut), *t: the steps a tile advances at a time
 * (0: the block's T; at most p->bt); `source` says how.  The rate measured on the plan's blocks
 * (stn_ooc_block_rate) runs the same tiles. */
void stn_ooc_sub_tiles(const stn_run *r, const stn_ooc_plan *p, uint64_t arrays, int64_t w[2], int64_t *t,
                       char *source, size_t n);

/* Step 1 for a run: --iblock, else the built-in iBlock when `builtin` (see stn_tuned_applies),
 * else eq. 1a for the machine; with its source and the kernels' tile of one thread. */
void stn_iblock_choose(const stn_run *r, int builtin, stn_iblock_pick *out);
/* The program has built-in (offline-tuned) blocks and nothing on the command line overrides
 * them (--block, --tuner, --iblock, --machine). */
int stn_tuned_wanted(const stn_run *r);
/* ... and the run's --size (and --schedule) are those they were tuned for: they apply. */
int stn_tuned_applies(const stn_run *r);

/* Blk-Tune step 1 (eq. 1a): the iBlock (iy, iz) for `threads` threads on `hw`. */
void stn_iblock(const stn_program_desc *d, const int64_t size[3], const stn_hw *hw, int64_t threads,
                int64_t out[2]);

/* ------------------------------------------------------------------ rate_history.c: earlier loops */

/* FNV-1a of n bytes at p, going on from h (STN_FNV_BASIS to begin): the fingerprints of a run's state
 * (engines/ooc/ooc_state.c) and of the key of its loops' history (rate_history.c). */
#define STN_FNV_BASIS 14695981039346656037ull
static inline uint64_t stn_fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* $CACHE/rates/KEY.txt: the last STN_HISTORY_RUNS loops of a key (the engine keeps a loop whose kernels ran
 * STN_HISTORY_MIN_SECONDS), lines under STN_HISTORY_LINE; machine-HASH.txt: the last STN_BIAS_RUNS ratios of
 * any key, used from STN_BIAS_LEAST of them (engines/ooc/ooc_history.c writes both). */
#define STN_HISTORY_MIN_SECONDS 5.0
#define STN_HISTORY_RUNS 5
#define STN_BIAS_RUNS 9
#define STN_BIAS_LEAST 3
#define STN_HISTORY_LINE 160
/* A line: its first figure (a fitted rate, or the machine's ratio), the sweeps' seconds, and the sweeps
 * they were, from s0 on for `steps` steps (0, 0: a machine's line, or a run's of before 2026-11-29). */
typedef struct stn_hist_run {
    double rate, loop;
    int64_t s0, steps;
} stn_hist_run;
/* STENCILC_RATE_HISTORY: 0 off, 1 (unset or anything else) on, 2 "always" (loops of any length kept). */
int stn_rate_history_mode(void);
/* Loops of plan p of run r are kept and used: the aio tier, one process, no fold, the kernels' rate this
 * machine's (no --machine), the reference schedule. */
int stn_rate_history_applies(const stn_run *r, const stn_ooc_plan *p);
/* The file of plan p's loops with cache tiles `tile` (machine: of the machine's ratios) and its key in words
 * (its first line): the host, the threads, the device of --dir; and but for the machine's, the program (its
 * .stn text, the compiler's version), the grid, the element, the blocks and the tiles.  0, or
 * -ENAMETOOLONG, or stn_cache_base's error. */
int stn_rate_history_path(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2], int machine,
                          char *path, size_t n, char *what, size_t wn);
/* The runs of the file whose first line is "# " `what` (no file, another key's: none), the last `keep` of
 * them oldest first, and their lines when `lines` is not NULL.  Their number. */
int stn_rate_history_read(const char *path, const char *what, int keep, stn_hist_run *run,
                          char (*lines)[STN_HISTORY_LINE]);
/* The quantile q of v[0..n) (n > 0; sorted in place), interpolated between two values: q = 0.5, the median.
 */
double stn_quantile(double *v, int n, double q);
/* The lower quartile of the machine's ratios, *runs of them (0 and *runs = 0: fewer than STN_BIAS_LEAST);
 * `path` receives the file's. */
double stn_rate_history_machine(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2], int *runs,
                                char *path, size_t n);
/* The model tm's prediction of plan p's sweeps from s0 on for `steps` steps (what is left of a run, or a kept
 * loop's part of one). */
void stn_ooc_part_time(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s0, int64_t steps,
                       const stn_time_model *tm, stn_time_pred *t);
/* The kernels' rate at which tm gives those sweeps, without transfers and exchanges, `wall` seconds: a
 * bisection on log2 of the rate within 16x of `guess`; 0 where the model's IO alone takes longer. */
double stn_ooc_fit_kernels(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s0, int64_t steps,
                           double wall, double guess, const stn_time_model *tm);
/* The kernels' rate Blk-Tune ranks finalist p with, whose startup sample is `sample`: the median of its
 * kept loops' rates, each fitted again under the tuner's model tm to its loop's seconds (the number of
 * loops returned); else the sample times the machine's lower quartile where there are enough ratios, else
 * the sample (0 returned). */
int stn_rate_history_rank(const stn_run *r, const stn_ooc_model *m, const stn_ooc_plan *p,
                          const int64_t tile[2], const stn_time_model *tm, double sample, double *rate);

/* ------------------------------------------------------------------ ranks.c: an MPI rank's plan */

/* r's run on this rank's part for the out-of-core engine, ghosts of bt_ghost steps (stn_part_run), with
 * the buffers of the exchange's deferred way down counted beside the rings when the memory policy allows
 * them (stn_part.defer), the blocks blk when given (the ranks' tuned ones); res->dims set.  What this
 * version does not split is refused (-ENOTSUP): --schedule alg1 and alg2, y-blocked tiles of a stencil
 * periodic along z or of a part cut across the rows. */
int stn_ooc_part_run(const stn_run *r, int64_t bt_ghost, const int64_t *blk, stn_run_copy *c,
                     stn_result *res);
/* Blk-Tune for ranks without --block: the ghost depth (bt x skew) must be known before a part is, so
 * each rank plans its part with ghosts for a guessed bt (first 1; stn_ooc_choose, no engine), the ranks
 * take the least bt they chose, and while that is more than the guess they plan again with ghosts that
 * deep.  Each rank keeps its own blocks (blk), run with the least bt (*bt_ghost; a smaller bt only
 * shrinks a window).  Collective. */
int stn_tune_ranks(const stn_run *r, stn_result *res, stn_ooc_result *out, int64_t blk[3], int64_t *bt_ghost);

#endif /* STN_OOC_H */
