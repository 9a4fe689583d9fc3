/*
 * stn_gpu.h -- the GPU tier's plan (gpu_plan.c): how a grid in host memory streams through a
 * GPU's memory in blocks advanced bt steps each (temporal blocking across PCIe, HHRT), and the
 * exact bytes the schedule moves.  Pure functions of the program, the grid and the budget: no
 * device, no engine, no allocation.  Private to the runtime; docs/design/024-gpu-tier.md is the
 * long form.
 *
 * The schedule.  The grid is cut along its slowest axis (z in 3d, y in 2d, x for a 1d grid: the
 * "planes", each plane_bytes of one array; a 1d grid's are its cells) into nblocks blocks of bz planes (the
 * last the rest: fewer, or up to 2 max(halo) - 1 more, so that no block is thinner than twice the boundary
 * layer); the boundary planes belong to the first and the last block.  A sweep advances every block T = bt
 * steps (the last sweep the steps left): for block [z0, z1) it uploads, of every array the step reads (the
 * kernel's src[]: each state field's level(s) and every input), the planes
 * [max(0, z0 - T rlo), min(n, z1 + T rhi)) -- the block and the cone its T steps read --, runs
 * step s = 1..T on what is still exact after s steps (the window less s rlo below and s rhi
 * above, except at the grid's faces), then downloads the block's own planes of every level of
 * every state field into the host's other copy of the grid (the host keeps two: the sweep reads
 * one and writes the other).  With one block no halo is needed: the whole grid goes up once, all
 * the steps run in one sweep (--mode gpu, in core), and it comes down once.  Inputs along an axis
 * go up once per run.
 *
 * Device memory: `streams` slots, each the window of every src[] and dst[] array (the steps
 * rotate them on the device), the inputs along an axis once, the point sets of the injects and
 * records once (uploaded once a run), and sample_rows steps of the records' samples (brought down
 * after each sweep; in core, each time sample_rows steps have filled them).  Pinned host memory: `streams`
 * staging slots, each a window of every src[] array (up) and a block of every state level (down).
 */
#ifndef STN_GPU_H
#define STN_GPU_H

#include "stn_rt.h"

#include <stdint.h>

/* What a GPU plan is asked for.  bz, bt: 0 chooses them (the fastest plan the model predicts
 * within gpu_mem); given, they are taken as they are (checked against the budget). */
typedef struct stn_gpu_request {
    const stn_program_desc *d;
    int64_t size[3]; /* nx, ny, nz (nz = 1 in 2d) */
    int64_t steps;
    uint64_t gpu_mem; /* the device memory the plan may use (--gpu-mem) */
    int streams;      /* CUDA streams (and staging slots) in flight; <= 0: 3 */
    int64_t bz, bt;   /* planes per block, steps per sweep; 0: choose */
    double h2d_bps;   /* host-to-device bytes/s the model assumes (<= 0: 25e9) */
    double d2h_bps;   /* device-to-host bytes/s (<= 0: 25e9) */
    double dev_bps;   /* the device's memory bytes/s for the kernels (<= 0: 2e12) */
    /* Sources and receivers (docs/design/011, 024): the bytes of the point sets (and off-grid weights) the
     * injects and records use, uploaded once a run; the bytes one step's samples of every record take. */
    uint64_t points_bytes, sample_step_bytes;
    /* The extent of the inputs along each axis (0: size's): an MPI rank's part reads the whole grid's. */
    int64_t along_n[3];
    /* Tiles (3d): 1 lets the plan cut each block of planes along y as well, into tiles of `by` rows, when
     * the table has a strided copy; by > 0 gives them (with bz), 0 chooses (or whole planes). */
    int tiles;
    int64_t by;
} stn_gpu_request;

/* The most bytes of samples the device holds in core (--mode gpu): a long run's come down in pieces. */
#define STN_GPU_SAMPLE_CHUNK (16u << 20)

typedef struct stn_gpu_plan {
    int axis;            /* the streamed axis: 2 (z) in 3d, 1 (y) in 2d, 0 (x) for a 1d grid */
    int64_t n;           /* its extent, boundary planes included */
    int64_t rlo, rhi;    /* how far one step reads along it (the reach) */
    int64_t L, H;        /* its interior [L, H) */
    int64_t plane_bytes; /* one plane of one array: nx (x ny in 3d) elements */
    int64_t bz, nblocks; /* planes per block, blocks */
    int64_t bt, steps, nsweeps;
    int streams;
    int in_arrays;         /* arrays uploaded per block: the kernel's src[] (nsrc) */
    int out_arrays;        /* arrays downloaded per block: every level of every state field */
    int dev_arrays;        /* arrays a device slot holds: nsrc + ndst */
    int64_t window_max;    /* the most planes a block's window has (bz + bt (rlo + rhi), clipped) */
    uint64_t along_bytes;  /* the inputs along an axis, uploaded once */
    int64_t along_n[3];    /* their extent along each axis (the request's along_n, else its size) */
    uint64_t dev_bytes;    /* device memory: streams x dev_arrays x window_max planes, + along_bytes */
    uint64_t pinned_bytes; /* pinned staging: streams x (in_arrays x window_max + out_arrays x widest block)
                              planes */
    uint64_t host_bytes;   /* the host's two copies of the grid's arrays */
    uint64_t h2d_bytes;    /* host to device, the whole run: exact */
    uint64_t d2h_bytes;    /* device to host, the whole run: exact */
    uint64_t planes_computed;   /* plane updates the device computes (all steps), redundant ones included */
    uint64_t points_bytes;      /* the point sets on the device, uploaded once a run (in h2d_bytes) */
    uint64_t sample_step_bytes; /* one step's samples of every record (steps x this: in d2h_bytes) */
    int64_t sample_rows; /* the steps of samples the device holds: a sweep's past one block; in core at most
                            STN_GPU_SAMPLE_CHUNK bytes of them, brought down as they fill (0: no records) */
    double predicted_s;  /* the model's time: max(up, down, kernels), all overlapped */
    /* Past one block, 1 when every state field is periodic along the streamed axis: the windows wrap
     * (stn_gpu_window's planes run past the grid's faces, unrolled: plane u is the grid's
     * stn_gpu_wrap_plane(u)), and every step's region shrinks at both ends (stn_gpu_region). */
    int wrap;

    /* Tiles (3d, past one block): each block of planes cut along y into nyb tiles of by rows (the last the
     * rest, as the blocks), a tile's window the cone along y as well (its rows [y0 - T yrlo, y1 + T yrhi),
     * clipped); nyb = 1, by = ny: whole planes.  A tile's arrays on the device are its window, packed. */
    int64_t ny, yrlo, yrhi, yL, yH; /* y's extent (1 in 1d and 2d), reach and interior */
    int64_t row_bytes;              /* one row of one array: nx elements (a 1d or 2d plane) */
    int64_t plane_cells;            /* the cells of a plane */
    int64_t by, nyb;                /* rows per tile, tiles per block */
    int64_t wy_max;                 /* the most rows a tile's window has (ny: whole planes) */
    uint64_t cells_computed;        /* cells the device computes (all steps), redundant ones included */
} stn_gpu_plan;

/* The streamed axis of program d: z in 3d, y in 2d, x for a 1d grid (whose "planes" are its cells). */
int stn_gpu_axis(const stn_program_desc *d);

/* Block k's own planes [*z0, *z1): bz each, the last one the rest (up to bz + 2 max(halo) - 1). */
void stn_gpu_block(const stn_gpu_plan *p, int64_t k, int64_t *z0, int64_t *z1);

/* The window block `k` of a sweep of `T` steps uploads: planes [*w0, *w1). */
void stn_gpu_window(const stn_gpu_plan *p, int64_t k, int64_t T, int64_t *w0, int64_t *w1);

/* The region step t (1..T) of window [w0, w1) computes, still exact: [*v0, *v1) (the window less t rlo
 * below and t rhi above, except at the grid's faces when the window does not wrap). */
void stn_gpu_region(const stn_gpu_plan *p, int64_t w0, int64_t w1, int64_t t, int64_t *v0, int64_t *v1);

/* The grid's plane that plane u of a wrapped window (unrolled along the streamed axis) holds: the interior
 * plane L + (u - L) mod (H - L); u itself when the plan does not wrap. */
int64_t stn_gpu_wrap_plane(const stn_gpu_plan *p, int64_t u);

/* Tile ky's own rows [*y0, *y1) of a block (by each, the last the rest; [0, ny) with whole planes). */
void stn_gpu_rows(const stn_gpu_plan *p, int64_t ky, int64_t *y0, int64_t *y1);

/* The rows tile ky of a sweep of T steps uploads: [*w0, *w1). */
void stn_gpu_rows_window(const stn_gpu_plan *p, int64_t ky, int64_t T, int64_t *w0, int64_t *w1);

/* The bytes one array of a device slot holds: window_max planes of wy_max rows. */
uint64_t stn_gpu_slot_bytes(const stn_gpu_plan *p);

/* stn_gpu_make_plan with the blocks cut along y into tiles of `by` rows (by <= 0 or >= ny: whole planes;
 * in core, or not 3d: whole planes too).  -EINVAL: tiles thinner than twice y's boundary layer; -ENOTSUP: a
 * field periodic along y, or windows that wrap along z (stn_gpu_plan.wrap: the chooser, stn_gpu_plan_for,
 * then gives whole planes). */
int stn_gpu_make_tiled(const stn_gpu_request *q, int64_t bz, int64_t by, int64_t bt, stn_gpu_plan *p);

/* Within the planner (gpu_plan.c, gpu_tiles.c): y's extent, reach and interior, whole planes; the model's
 * time of plan p; whether a is the better plan; the best tiled plan of q within its budget when better than
 * *best (or none is *found yet), g the geometry (stn_gpu_plan_for's). */
void stn_gpu_rows_geometry(const stn_gpu_request *q, stn_gpu_plan *p);
double stn_gpu_predict(const stn_gpu_request *q, const stn_gpu_plan *p);
int stn_gpu_better(const stn_gpu_plan *a, const stn_gpu_plan *b);

/* The rows' side of tiles (gpu_tiles.c), for the model of gpu_plan.c: the thinnest tile (twice y's boundary
 * layer); the tiles of `by` rows (a thinner remainder joining the last); over the tiles of a sweep of T
 * steps, the windows' rows (*w) and the rows the regions lose each step (*sh); Σ over s = 1..T of (A - s B)(C
 * - s D); and, for each by (t[by], by < ny), the tiles' sums for sweeps of T and of Tl steps and the widest
 * window. */
int64_t stn_gpu_min_rows(const stn_gpu_plan *p);
int64_t stn_gpu_tiles_of(const stn_gpu_plan *p, int64_t by);
void stn_gpu_rows_sums(const stn_gpu_plan *p, int64_t T, int64_t *w, int64_t *sh);
int64_t stn_gpu_cone_sum(int64_t A, int64_t B, int64_t C, int64_t D, int64_t T);
typedef struct stn_gpu_rows_sums_ {
    int64_t ok, wy_max, a, b, al, bl;
} stn_gpu_rows_sums_;
void stn_gpu_rows_table(const stn_gpu_plan *g, int64_t T, int64_t Tl, stn_gpu_rows_sums_ *t);

/* Fill `p` for request q with its bz and bt (q->bz, q->bt > 0) and the predicted bytes; no budget
 * check.  Returns 0, or -EINVAL (a request no plan answers: says why via stn_error). */
int stn_gpu_make_plan(const stn_gpu_request *q, int64_t bz, int64_t bt, stn_gpu_plan *p);

/* The plan for request q: bz and bt as given, or chosen (the least predicted time within
 * gpu_mem; ties: fewer bytes moved, then larger blocks).  Returns 0; -ENOMEM when no plan fits
 * gpu_mem (the message names the budget and the smallest plan's need); -ENOTSUP for a field
 * periodic along the streamed axis, when the grid does not fit in one block, unless the windows can wrap
 * (stn_gpu_wrap_refusal); -EINVAL otherwise. */
int stn_gpu_plan_for(const stn_gpu_request *q, stn_gpu_plan *p);

/* Whether program d's blocks past one may wrap along the streamed axis `axis` (0: no field is periodic
 * along it, or all are and the windows wrap); else -ENOTSUP, saying why: some state field is periodic along
 * it and another is not, an input is read at an offset along it (its boundary cells are its own, not the
 * far side's), or sub-steps (their cells around a box would cross the wrap).  size: the grid (for the
 * sub-steps' scratch). */
int stn_gpu_wrap_refusal(const stn_program_desc *d, int axis, const int64_t size[3], int *wraps);

#endif /* STN_GPU_H */
