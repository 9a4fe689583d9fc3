/*
 * stn_hdf5.h -- the snapshot file of --save-to (io/hdf5.c; docs/design/021-snapshots.md, docs/snapshots.md).
 *
 * One HDF5 file written through libhdf5: one dataset per saved field, NAME of shape (snapshots, [nz',]
 * [ny',] nx') (the saved steps first, then the grid's axes as in a .npy, every stride-th cell), chunked,
 * its dimension scales NAME_step (the steps saved) and NAME_z, NAME_y, NAME_x (the cells kept); each
 * record's samples NAME (steps, n) with NAME_step and NAME_point; the run's attributes.  It is written to
 * a temporary beside the file (.BASENAME.partial-PID) and renamed into place by stn_h5_commit once
 * complete, with the root attribute complete = 1: a failed run leaves no file that looks complete.
 *
 * A runtime built without libhdf5 (STN_HAVE_HDF5 undefined) refuses --save-to (base/save.c), and these
 * calls then fail with -ENOTSUP.  Nothing here is thread-safe (libhdf5 is not): one thread calls.
 */
#ifndef STN_HDF5_H
#define STN_HDF5_H

#include "base/stn_internal.h"

typedef struct stn_h5 stn_h5;

/* MPI with a parallel libhdf5 (STN_H5_PARALLEL): the ranks that make and write the one file together
 * (docs/design/021).  Every call but put is then made by every rank, with the same arguments (libhdf5's
 * metadata operations are collective); each rank puts its own cells (independent writes); rank 0 alone
 * makes, syncs and renames the temporary, and writes the records and the scales. */
typedef struct stn_h5_ranks {
    int rank, size;
    void (*bcast)(void *buf, size_t n, int root); /* rank root's n bytes into every rank's buf */
    int (*fapl)(int64_t fapl);                    /* the MPI-IO driver on the ranks' communicator: 0, or -1 */
} stn_h5_ranks;

/* The temporary of o->save_to, with a dataset of the snapshots of each saved field for runs of up to
 * o->steps steps (the time axis shrinks at commit to the snapshots taken); `piece`: the most bytes a put
 * gathers at a time (stn_mem_snap_piece of the budget); `ranks` NULL: one process writes it.  0 or -errno,
 * the message naming the file and the cause. */
int stn_h5_open(const stn_program_desc *d, const stn_opts *o, uint64_t piece, const stn_h5_ranks *ranks,
                stn_h5 **h);
/* MPI without parallel HDF5 (rank 0 gathering; docs/design/021): the channel the ranks' out-of-core tiles
 * send the pieces of their own cells on to rank 0 as they compute them (mpi/par.c's stn_par_snap_*); the
 * most bytes a piece gathers (as stn_h5_open's). */
typedef struct stn_h5_gather {
    int rank, size;
    uint64_t piece;
    int (*send)(const void *buf, size_t n);    /* n bytes to rank 0, blocking */
    int (*probe)(int *src, size_t *n);         /* rank 0: 1 and a message's source and bytes, else 0 */
    int (*recv)(int src, void *buf, size_t n); /* rank 0: that message */
} stn_h5_gather;
/* The channel given to rank 0's file and to the other ranks' handles: from then on a put on a rank but 0
 * gathers the kept cells as it would for the file and sends them (the piece's place, then its cells), which
 * rank 0 writes (and counts) when it takes them; stn_h5_gathers says whether h has it. */
void stn_h5_set_gather(stn_h5 *h, const stn_h5_gather *g);
int stn_h5_gathers(const stn_h5 *h);
/* Rank 0, between its tiles: the pieces that have come, written; nothing elsewhere.  A failure to write is
 * kept and returned, the later pieces taken and dropped (the senders never wait on a rank that failed). */
int stn_h5_take(stn_h5 *h, stn_stats *st);
/* After each sweep, every rank, also after a failure: a rank but 0 sends the end of its sweep's pieces;
 * rank 0 takes pieces until it has every other rank's end (so no rank is left in a send while rank 0 waits
 * in a collective).  0, or the sweep's first failure to write. */
int stn_h5_sweep_end(stn_h5 *h, stn_stats *st);
/* MPI, every rank but 0: a handle without a file, for stn_h5_wants (the engine sends its cells of each
 * saved step to rank 0, which puts them: engines/engine.c); flush does nothing, put is not called. */
int stn_h5_open_remote(const stn_program_desc *d, const stn_opts *o, stn_h5 **h);
/* With --resume (o->resume), the open adopts the temporary a killed run of the same options left beside the
 * file (its attribute "run" says which run it is of) and goes on writing it; stn_h5_resumed says whether
 * it did (else the file is new). */
int stn_h5_resumed(const stn_h5 *h);
/* Whether ranks write the file together (parallel HDF5): each puts its own cells (h may be NULL: no). */
int stn_h5_parallel(const stn_h5 *h);
/* Everything put so far on stable storage (libhdf5's caches flushed, the file fsynced): before an
 * out-of-core sweep's state commits, so that a resumed run finds the snapshots of the steps it skips. */
int stn_h5_flush(stn_h5 *h);
/* Whether step k of field f is saved (h may be NULL: no). */
int stn_h5_wants(const stn_h5 *h, int f, int64_t k);
/* Whether any field saves step k (h may be NULL). */
int stn_h5_wants_any(const stn_h5 *h, int64_t k);
/* Where a put reads the value of a cell along each axis: kind 0 the cell itself, 1 mirrored into the
 * interior [lo, hi) (neumann: i < lo reads 2 lo - 1 - i, i >= hi reads 2 hi - 1 - i), 2 wrapped into it
 * (periodic: i +- (hi - lo)).  Interior cells read themselves. */
typedef struct stn_h5_map {
    int kind[3];
    int64_t lo[3], hi[3];
} stn_h5_map;

/* The cells of box b (global indices, inside the grid) of field f's current level after step k, into the
 * snapshot of step k: those whose indices are multiples of the stride, the value of each read from `data`
 * (laid out as v: element (x, y, z) at data[(z - z0) sz + (y - y0) sy + x]) at the cell map m gives (NULL:
 * the cell itself); nothing when step k is not saved.  Each cell of each snapshot is put once.  Gathered
 * and written in pieces of at most the open's `piece` bytes (or one cell); their bytes are counted in st
 * (bytes_written). */
int stn_h5_put(stn_h5 *h, int f, int64_t k, const stn_view *v, const void *data, const stn_box *b,
               const stn_h5_map *m, stn_stats *st);
/* A record's samples, `steps` rows of n values, into dataset NAME; counted in st. */
int stn_h5_record(stn_h5 *h, const char *name, const void *data, int64_t steps, int64_t n, stn_stats *st);
/* The data bytes of the snapshots of steps [0, done] of every saved field: what stn_h5_put counts. */
uint64_t stn_h5_bytes(const stn_program_desc *d, const stn_opts *o, int64_t done);
/* The snapshots' data bytes of a run of o->steps steps over its steps (0 without --save-to): the rate the
 * time model writes them at (plan/ooc_model.c). */
double stn_h5_bytes_per_step(const stn_program_desc *d, const stn_opts *o);
/* After `done` steps: each time axis cut to the snapshots of steps [0, done], the attributes, complete = 1,
 * the file closed by libhdf5 (still the temporary: under parallel HDF5 every rank calls it). */
int stn_h5_close(stn_h5 *h, int64_t done);
/* stn_h5_close unless done already, then the temporary synced and renamed into place (rank 0); the writer
 * freed (also on failure). */
int stn_h5_commit(stn_h5 *h, int64_t done);
/* The temporary removed, the writer freed (NULL is fine). */
void stn_h5_abort(stn_h5 *h);
/* libhdf5 started by the runtime (once; before MPI_Init in a program, before any other call here), without
 * its exit handler: the runtime terminates it at exit itself, unless a file's close failed, after which
 * libhdf5 1.10 would crash terminating (the failed file's handle dangles; hdf5.c).  No-op without libhdf5. */
void stn_h5_start(void);
/* H5Fclose of `file` (a hid_t): 0, or -1 when it failed (libhdf5 is then not terminated at exit). */
int stn_h5_fclose(int64_t file);
/* h5watch.c: the watchdog over a file's collective flush and close under parallel HDF5 (libhdf5 1.10
 * deadlocks there after a rank's failed write): armed, 1 (0: STENCILC_H5_CLOSE_SECONDS=0, or not armed); past
 * its time the rank prints the error naming `program` and `path`, removes `tmp` (NULL: none) and ends with
 * _exit(1). */
int stn_h5_watch(const char *program, const char *path, const char *tmp);
void stn_h5_unwatch(void); /* disarmed (nothing when not armed) */

/* ------------------------------------------------------------------ h5data.c: datasets as --init and --out
 */

/* FILE.h5:/DSET or FILE.h5:/DSET[I] (FILE ending in .h5 or .hdf5; I an integer, < 0 from the end). */
typedef struct stn_h5_ref {
    char file[4096], dset[1024];
    int has_index;
    int64_t index;
} stn_h5_ref;
/* 1 and r filled when arg names an HDF5 dataset, 0 when it does not (a .npy), -EINVAL with the message
 * when it does but is malformed (an index that is not an integer). */
int stn_h5_ref_parse(const char *arg, stn_h5_ref *r);
/* elem x the product of shape[0 .. ndim). */
uint64_t stn_h5_ref_bytes(int ndim, const int64_t *shape, int elem);
/* The dataset `arg` names (its snapshot I when indexed), of the grid's element type (descr) and shape
 * (slowest first), read into a new .npy at npy_path (made whole, synced and renamed into place); the file
 * is opened read-only.  Errors name arg, the file, the dataset and the cause (no such file or dataset, the
 * type or shape, the index out of range).  The dataset's bytes read and the .npy's written count in st. */
int stn_h5_extract(const char *arg, const char *descr, int ndim, const int64_t *shape, const char *npy_path,
                   stn_stats *st);
/* A new HDF5 file at path: a temporary beside it (stn_afile) until stn_h5_out_commit. */
typedef struct stn_h5_out stn_h5_out;
int stn_h5_out_open(const char *path, stn_h5_out **h);
/* The whole .npy at npy_path (descr, shape) into a new contiguous dataset dset (intermediate groups made),
 * its attribute "step"; the bytes read and written count in st. */
int stn_h5_out_put(stn_h5_out *h, const char *dset, const char *npy_path, const char *descr, int ndim,
                   const int64_t *shape, int64_t step, stn_stats *st);
/* The root attribute complete = 1, the file closed and its temporary synced (before the report). */
int stn_h5_out_finish(stn_h5_out *h);
/* The temporary renamed into place, the directory synced; h freed (also on failure). */
int stn_h5_out_commit(stn_h5_out *h);
void stn_h5_out_abort(stn_h5_out *h); /* the temporary removed; h freed (NULL is fine) */

#endif /* STN_HDF5_H */
