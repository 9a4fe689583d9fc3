/*
 * stn_part.h -- a rank's part of the grid under MPI (docs/design/018, 019): how the ranks split a run
 * (mpi/split.c), the part's geometry in the whole grid (mpi/part.c), and the ghosts' exchanges between
 * neighbours (mpi/ghosts.c).  The engines and the tuner reach MPI only through these and the few
 * collectives of mpi/stn_par.h; a program built without --mpi runs the same code with one rank, whose
 * run has no part (stn_run.part NULL).
 *
 * The ranks form a grid of dims[0] x dims[1] x dims[2] (--ranks, or the split the IO model prefers).
 * Along each axis k the interior is cut into dims[k] parts as equal as whole indices allow, the first
 * and last with the boundary layer (not on a ring, whose boundary layer is the far side's).  A rank's
 * engine runs on its own part extended by ghost indices of depth g = bt x skew on each side a
 * neighbour shares, whose outer `reach` indices it never computes (a frozen layer: its values are
 * right at a sweep's first step, and what goes wrong from there reaches no further than g in bt
 * steps).  Between sweeps (or chunks of steps in-core) neighbours swap their own edge indices into
 * each other's ghosts: along the split axis, the one the engines' blocks stream along (y in 2d, z in
 * 3d), then across the rows (x, then y in 3d), over the other axes' ghosts too, so that the corners
 * come from the diagonal neighbours.  The engine indexes its part locally; the kernels see the whole
 * grid's coordinates (stn_map_call).
 */
#ifndef STN_PART_H
#define STN_PART_H

#include "mpi/stn_par.h"
#include "run/stn_run.h"

/* One axis of a rank's part: the same description for every axis, cut or not. */
typedef struct stn_cut {
    int64_t n;        /* the whole grid's extent along the axis */
    int64_t base;     /* the whole grid's index of the part's local index 0 */
    int64_t ext;      /* the part's extent along the axis, ghosts included (its local indices [0, ext)) */
    int64_t lo, hi;   /* the part's own local indices [lo, hi): what it exchanges and writes out */
    int64_t g;        /* ghost depth (bt x skew): indices below lo and from hi that neighbours own; 0 uncut */
    int64_t L, H;     /* the whole grid's interior [L, H) */
    int64_t skew;     /* how far a step reads along the axis (a cut axis' ghosts are bt x skew deep) */
    int nb[2];        /* the world ranks of the neighbours below and above (-1: none) */
    int ranks, coord; /* the ranks along the axis, and this rank's place among them */
    int ring;         /* the ranks along the axis are a ring: some field wraps it, global index base + i
                       * is L + (base + i - L) mod (H - L) (a ring of one rank: its own neighbour) */
} stn_cut;

typedef struct stn_part {
    int split;      /* the axis the engines' blocks stream along, 1 (y) or 2 (z): the slabs' axis */
    stn_cut ax[3];  /* x, y, z */
    int64_t bt;     /* the steps the ghosts are deep */
    uint64_t defer; /* out of core: the bytes of the buffers of the exchange's second half, overlapped with
                     * the next sweep's first blocks (docs/design/019); 0: the exchange blocks whole */
} stn_part;

/* The axes (bit k: axis k) whose ranks are rings. */
static inline int stn_part_rings(const stn_part *p) {
    return p ? p->ax[0].ring | p->ax[1].ring << 1 | p->ax[2].ring << 2 : 0;
}
/* The axes across the rows (bit k: axis k, not the split one) that the ranks cut. */
static inline int stn_part_cross(const stn_part *p) {
    int c = 0;
    for (int k = 0; p && k < 3; k++)
        c |= (k != p->split && p->ax[k].ranks > 1) << k;
    return c;
}
/* A part whose engine must run whole planes out of core (no y-blocked tiles): a ring along the split
 * axis, or ranks cutting across the rows. */
static inline int stn_part_whole_planes(const stn_part *p) {
    return p && (p->ax[p->split].ring || stn_part_cross(p));
}
/* The split axis' cut. */
static inline const stn_cut *stn_part_slab(const stn_part *p) { return &p->ax[p->split]; }

/* ------------------------------------------------------------------ split.c: the ranks' split */

/* What an engine's exchanges cost, which decides the split the IO model prefers: in-core the messages
 * (DRAM), out of core the flash bytes of a sweep over the part (FLASH). */
enum { STN_SPLIT_DRAM = 0, STN_SPLIT_FLASH };

/* The ranks along each axis (dims[k]): --ranks, or the split of stn_par_size() ranks the `cost` prefers
 * (docs/design/019); a 1d grid's ranks split its folded rows.  0, or -EINVAL with the reason in why. */
int stn_part_dims(const stn_run *r, int cost, int dims[3], char *why, size_t n);
/* The largest bt whose ghosts (bt x skew) every rank's part can give its neighbours. */
int64_t stn_part_most_bt(const stn_run *r, int cost);
/* r's run on this rank's part, for ghosts of bt steps: c->run.part (owned by c), the sizes, view and grid
 * bytes local, the halo on a side cut between ranks the step's reach, no field wrapping a ring, the
 * files named NAME.rK, the --out writers expecting the rank's own cells: 0, or -EINVAL when a part is
 * thinner than the ghosts a neighbour takes. */
int stn_part_run(const stn_run *r, int cost, int64_t bt, stn_run_copy *c);

/* ------------------------------------------------------------------ part.c: the part's geometry */

/* [lo, hi) of whole-grid indices along an axis, on a ring (interior [L, H)) cut where it crosses L or H
 * into up to three pieces out[k] = {a, b, d}: [a, b) whose values are at [a + d, b + d); otherwise one
 * piece, d = 0.  The number of pieces. */
int stn_ring_pieces(int64_t lo, int64_t hi, int ring, int64_t L, int64_t H, int64_t out[3][3]);
/* What a rank writes of an --out along axis k: its own local indices [out[0][0], out[0][1]), and along a
 * ring also those the boundary layer copies, each out[j] = {a, b, d} going to whole-grid index local +
 * base + d; *n (when not NULL) the pieces, the count of indices returned. */
int64_t stn_part_out(const stn_part *p, int k, int64_t out[3][3], int *n);
/* The cells a rank writes of an --out: the product of stn_part_out's counts over the axes. */
uint64_t stn_part_out_cells(const stn_part *p);
/* The kernels' views and boxes of a call on the engine's view v and box: a folded run's 1d cells
 * (stn_fold_map), a part's whole-grid coordinates (x by the pointer shift), or v and box themselves;
 * along each ring of ranks in up to three pieces, each moved into the interior [L, H) by its width
 * (wrap[k]: 1 when some axis moved), the kernels told that the engine fills the axes' wrap (own_axes).
 * The number of calls (0 when the call has no cell). */
#define STN_MAP_MAX 27 /* up to three pieces along each of three rings */
int stn_map_call(const stn_run *r, const stn_view *v, const stn_box *box, int interior,
                 stn_view v1[STN_MAP_MAX], stn_box b1[STN_MAP_MAX], int64_t shift[STN_MAP_MAX],
                 int wrap[STN_MAP_MAX]);
/* Where a row of the part's window lies in the whole grid's C-order array: row y of whole-grid plane z
 * (3d: y the part's own local row; 2d: z = 0 and y the whole grid's row, the split axis).  own = 0:
 * every cell of the row, each piece of a ring across x from where it wraps to (what a read takes);
 * own = 1: the rank's own cells of an own row, and along a ring also those its boundary layer copies
 * (what it writes; nothing of a ghost row).  Piece k: the row's local cells [x0, x1), the first at
 * whole-grid cell index `cell`.  The number of pieces (at most 9). */
typedef struct stn_row_piece {
    int64_t x0, x1;
    uint64_t cell;
} stn_row_piece;
int stn_part_row_places(const stn_part *p, int ndim, int64_t z, int64_t y, int own, stn_row_piece pc[9]);
/* The cells of the kernels' box `own` (whole-grid coordinates, a folded grid's cells) that this rank
 * owns, clipped in place: its records sample those only (a ghost's may be stale).  0 when none is left,
 * or when a ring moved the box (`wrapped`: ghosts); 1 without a part. */
int stn_part_own_box(const stn_run *r, int wrapped, stn_box *own);

/* ------------------------------------------------------------------ dense.c: a part held in DRAM */

/* The part's cells of the whole grid's .npy at `path` (a ring's slices where they wrap to; a folded
 * grid's rows' cells) into `data`, laid out as r->view; counted in st. */
int stn_part_load(const stn_run *r, const char *path, char *data, stn_stats *st);
/* The rank's own cells of `data` (laid out as r->view), and along a ring those its boundary layer
 * copies, into an --out writer at their whole-grid places; counted in st. */
int stn_part_save(const stn_run *r, stn_npy_writer *w, const char *data, stn_stats *st);
/* The IO model of a part held in DRAM: the bytes it reads of an --init file (*in) and writes of an
 * --out (*out). */
void stn_part_file_bytes(const stn_run *r, uint64_t *in, uint64_t *out);
/* Swap the ghosts of the state levels `levels[0..n)`, arrays laid out as r->view (stn_ghosts_swap);
 * *msg: the message bytes sent, added. */
int stn_part_swap_dense(const stn_run *r, char *const *levels, int n, uint64_t *msg);

/* ------------------------------------------------------------------ ghosts.c: the ghosts' exchanges */

/* One piece of a state level an exchange moves: split-axis local indices [i0, i1) of it, of each the
 * rows [j0, j1) (a slice along the split axis: a plane of ny rows in 3d, one row in 2d). */
typedef struct stn_ghost_piece {
    int level;
    int64_t i0, i1, j0, j1;
} stn_ghost_piece;

/* How an engine holds its part's state levels, for their ghosts' exchange: slices along the split axis,
 * each `rows` rows `row` bytes apart (nx cells of `elem` bytes used in each), reached through its
 * callbacks (0 or a negative errno).  In DRAM the slices are the level arrays themselves and staging
 * moves nothing; out of core the pieces pass through the window's rings from and to the part's files. */
typedef struct stn_ghost_store {
    void *ctx;
    int levels;        /* the state levels, each exchanged */
    int64_t rows;      /* rows of a slice */
    size_t row, elem;  /* bytes from one row to the next, bytes of a cell */
    int64_t nx;        /* cells of a row */
    int64_t step, run; /* a message moves `step` split-axis indices of `run` rows of each (at most) */
    int64_t batch;     /* slices a pass across the rows holds at once (the same on every rank) */
    int64_t slices;    /* the part's slices along the split axis */
    /* piece pc's memory: to send (in = 0; loaded first when `load`), or to receive into (in = 1) */
    int (*stage)(void *ctx, const stn_ghost_piece *pc, int in, int load, char **buf);
    int (*land)(void *ctx, const stn_ghost_piece *pc); /* a received piece (staged with in = 1) into place */
    /* a pass across the rows: slices [i0, i1) of a level into memory (store = 0), or back (1) */
    int (*batch_io)(void *ctx, int level, int store, int64_t i0, int64_t i1);
    char *(*slice)(void *ctx, int level, int64_t i); /* slice i's first row in memory (after batch_io) */
    int (*done)(void *ctx, int level);               /* every ghost of the level in place (or NULL) */
} stn_ghost_store;

/* Swap the ghosts of every state level with the neighbours: the split axis' way up (the last g own
 * indices to the rank above, which keeps them below its own), then down unless `up_only` (the way down
 * deferred: stn_ghosts_post_down), then across the rows (x, then y in 3d) over the other ghosts too.  A
 * rank whose staging fails goes on sending and receiving, so that no neighbour waits forever; the
 * caller agrees on the outcome.  *msg: the message bytes this rank sent, added. */
int stn_ghosts_swap(const stn_part *p, const stn_ghost_store *gs, int up_only, uint64_t *msg);
/* The deferred way down (docs/design/019): the low own edges of every level, `bytes` of them at `buf`
 * (staged by the engine), sent to the rank below while the high ghosts come from the rank above into
 * buf + bytes; in flight in *q until stn_par_wait.  *msg: the bytes sent, added. */
int stn_ghosts_post_down(const stn_part *p, char *buf, size_t bytes, stn_par_req *q, uint64_t *msg);
/* The message bytes of one exchange of a part held dense in DRAM (view v, `levels` state levels): g
 * slices of the split axis to each neighbour along it, then g_k indices of every row (x) or plane row
 * (y) of the part, ghosts included, to each neighbour along a cross cut. */
uint64_t stn_ghosts_dense_bytes(const stn_part *p, const stn_view *v, size_t elem, uint64_t levels);

/* The ghosts' exchanges of an MPI rank's part between sweeps (docs/design/018, 019), for the IO and
 * time models: what one exchange moves depends on the plan (its slices and rows) and the ghost depth. */
typedef struct stn_xchg_model {
    uint64_t levels;  /* state levels an exchange moves; 0: none (one rank) */
    int axis;         /* the split axis (the plan's r, or q when y-blocked) */
    int nb;           /* neighbours along it */
    int64_t skew;     /* its ghosts: bt x skew slices */
    int cross;        /* bit k: axis k (x, y in 3d) cut too: a pass over the part's slices */
    int xsides[2];    /* neighbours along x and y */
    int64_t xskew[2]; /* their skews */
    int64_t nx, rows; /* the part's cells a row, rows a slice of whole planes */
    int64_t elem;
    int defer; /* the way down runs beside the next sweep (whole planes): its messages hidden */
    double net_bytes_per_second, net_latency; /* the network (0: messages not timed) */
} stn_xchg_model;

/* r's exchanges (r: a rank's part, stn_part_run; levels 0 without MPI), the network's figures of r. */
void stn_xchg_of(const stn_run *r, stn_xchg_model *x);
#endif /* STN_PART_H */
