/*
 * stn_engine.h -- the engine interface: one table of operations that every engine implements (the
 * in-core engine, engines/incore.c; the mapped-file baseline, engines/mmap.c; the out-of-core engine,
 * engines/ooc/), and the calls the program and the simulation API make through it (engines/engine.c).
 * Nothing above this layer names an engine: program/ opens the engine --mode names
 * (base/stn_engines.def) and calls only these.  docs/design/020 draws it.
 *
 * An engine held open owns the state of the run's fields between calls: open sets the levels of
 * step 0 (the --init files, the init expressions, zero; a resumed run's saved state), advance runs
 * steps from the current levels, box moves a box of one level between the engine and a caller's
 * buffer, account gives the result so far (its IO and time models included), finish writes every
 * --out from the current levels into the run's writers, close frees everything.
 */
#ifndef STN_ENGINE_H
#define STN_ENGINE_H

#include "run/stn_run.h"

/* A box of cells of one field level, moved between an engine and a caller's buffer: element (x, y, z)
 * at buf[(x - lo[0]) st[0] + (y - lo[1]) st[1] + (z - lo[2]) st[2]] (strides in elements). */
typedef struct stn_box_io {
    int f, level; /* the field, its level: 0 the current one, 1 the previous */
    int write;    /* 1: the buffer into the level; 0: the level into the buffer */
    int64_t lo[3], hi[3], st[3];
    char *buf;
} stn_box_io;

/* An engine's operations (`state` is what its open made).  Every one returns 0 or a negative errno
 * with the message set (stn_error). */
typedef struct stn_engine_ops {
    const char *name; /* as --mode names it */
    struct {          /* what the program prepares for it, and what it accepts: */
        int plans;    /* it plans blocks for the DRAM budget: the out-of-core options apply (else a warning
                       * says they are ignored), its plan (stn_ooc_result) goes into the report, it runs at
                       * least one sweep of --steps */
        int device;   /* its scratch lives on --dir's device: the O_DIRECT alignment and the device's curves
                       * are found before it opens, and under MPI the network for its time model */
        int resumes;  /* its state stays in files that --resume goes on from */
        int splits;   /* MPI ranks split its grid */
    } has;
    /* open: the run (with its writers open), the result it fills, its plan's report (engines that
     * plan), `program`: the program's run (its one advance is the whole run) rather than a simulation */
    int (*open)(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, void **state);
    int64_t (*steps_done)(const void *state);               /* the steps the levels hold at open (--resume) */
    int (*advance)(void *state, int64_t t0, int64_t steps); /* steps t0 .. t0 + steps - 1 */
    int (*box)(void *state, const stn_box_io *b);
    int (*account)(void *state, stn_result *out); /* the result so far, models included, into *out */
    int (*finish)(void *state);                   /* every --out, and the models of the whole run */
    void (*close)(void *state, int keep);         /* keep: leave a failed run's files for --resume */
    /* saves (NULL: never): whether the engine, as opened, puts the snapshots of --save-to (r->snap) itself
     * as it computes each saved step; else stn_engine_advance stops at each saved step and puts the levels
     * it reads through box.  The levels at open are put by put_levels, else through box. */
    int (*saves)(const void *state);
    /* part (NULL, or NULL back: none): MPI, this rank's part of the grid (mpi/stn_part.h), whose local
     * indices box then takes; engine.c puts the part's own cells of each snapshot (itself under parallel
     * HDF5, else through rank 0).  A 1d grid's part is a slab of its folded rows: *fold is then the fold
     * (else NULL), and box takes the 1d cells of the part's rows, local cell i the whole grid's cell
     * i + base W of the slab's base row (design 014). */
    const struct stn_part *(*part)(const void *state, const stn_fold **fold);
    /* put_levels (NULL: never): the levels after step k (the levels at open) of the fields that save step k
     * put into r->snap by the engine itself, in the order its storage is cheapest to read in (the
     * out-of-core engine: chunk by chunk of its window, each read once), 0; or 1 when it does not for this
     * run, and engine.c reads them through box. */
    int (*put_levels)(void *state, int64_t k);
} stn_engine_ops;

/* The engines' tables (base/stn_engines.def names them). */
#define STN_ENGINE(NAME, name, ops) extern const stn_engine_ops ops;
#include "base/stn_engines.def"
#undef STN_ENGINE

/* ------------------------------------------------------------------ engine.c: the calls */

typedef struct stn_engine stn_engine; /* an engine held open */

/* The operations of engine `mode` (STN_MODE_*). */
const stn_engine_ops *stn_engine_of(int mode);
/* Open the engine r->o->mode names (see stn_engine_ops.open); *e is NULL on failure.  With snapshots
 * (r->snap), the levels at open are put when their step is saved (read through box), and, for an engine
 * that does not put them itself (saves), each advance stops at every saved step to put them
 * (docs/design/021). */
int stn_engine_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, stn_engine **e);
/* The DRAM snapshots hold while they are put (engine.c's piece read through box, and io/hdf5.c's staging of
 * the cells kept, at most stn_mem_snap_piece of the budget and the grid), which a run counts in
 * stn_run.held; 0 without --save-to. */
uint64_t stn_engine_snap_bytes(const stn_run *r);
/* The snapshots' data bytes this process writes from step `first` (the levels at open) to the end of
 * --steps: all of them on rank 0 (one process, or rank 0 gathering), under parallel HDF5 the kept cells of
 * the rank's own part; 0 without --save-to.  What stn_h5_put counts (the IO model's prediction). */
uint64_t stn_engine_snap_written(const stn_engine *e, int64_t first);
int64_t stn_engine_steps_done(const stn_engine *e);
int stn_engine_advance(stn_engine *e, int64_t t0, int64_t steps);
int stn_engine_box(stn_engine *e, const stn_box_io *b);
int stn_engine_account(stn_engine *e, stn_result *out);
int stn_engine_finish(stn_engine *e);
void stn_engine_close(stn_engine *e, int keep); /* NULL is fine */

/* ------------------------------------------------------------------ engine.c: what engines share */

/* The arrays every engine keeps: one zeroed record of `field_size` bytes per field, and the kernels'
 * source and destination pointer lists (one spare slot each).  0, or -ENOMEM with the error set
 * (naming `engine`); on failure the caller frees whatever is not NULL. */
int stn_engine_arrays(const stn_program_desc *d, size_t field_size, void **f, const void ***src, void ***dst,
                      const char *engine);
/* Copy box b between the caller's buffer and `level`, an array laid out as v with elements of `es`
 * bytes (b->write: into the level). */
void stn_engine_copy_box(const stn_view *v, size_t es, char *level, const stn_box_io *b);
/* n bytes zeroed (copied, its time counted as copy in st) by every OpenMP thread, thread t its t-th share:
 * the static split of the kernels' outer loops, so a page is first touched by (about) a thread that
 * computes on it. */
void stn_engine_par_zero(void *p, size_t n);
void stn_engine_par_copy(void *dst, const void *src, size_t n, stn_stats *st);

#endif /* STN_ENGINE_H */
