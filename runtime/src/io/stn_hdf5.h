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

/* The temporary of o->save_to, with a dataset of the snapshots of each saved field for runs of up to
 * o->steps steps (the time axis shrinks at commit to the snapshots taken).  0 or -errno, the message
 * naming the file and the cause. */
int stn_h5_open(const stn_program_desc *d, const stn_opts *o, stn_h5 **h);
/* Whether step k of field f is saved (h may be NULL: no). */
int stn_h5_wants(const stn_h5 *h, int f, int64_t k);
/* Whether any field saves step k (h may be NULL). */
int stn_h5_wants_any(const stn_h5 *h, int64_t k);
/* The cells of box b (global indices, inside the grid) of field f's current level after step k, laid out
 * as v in `data` (element (x, y, z) at data[(z - z0) sz + (y - y0) sy + x]), into the snapshot of step k:
 * those whose indices are multiples of the stride; nothing when step k is not saved.  Each cell of each
 * snapshot is put once.  The bytes are counted in st (bytes_written): the snapshot's data bytes. */
int stn_h5_put(stn_h5 *h, int f, int64_t k, const stn_view *v, const void *data, const stn_box *b,
               stn_stats *st);
/* A record's samples, `steps` rows of n values, into dataset NAME; counted in st. */
int stn_h5_record(stn_h5 *h, const char *name, const void *data, int64_t steps, int64_t n, stn_stats *st);
/* The data bytes of the snapshots of steps [0, done] of every saved field: what stn_h5_put counts. */
uint64_t stn_h5_bytes(const stn_program_desc *d, const stn_opts *o, int64_t done);
/* The staging buffer's bytes for a box of cells (what stn_h5_put allocates, at most): the kept cells. */
uint64_t stn_h5_staging(const stn_program_desc *d, const stn_opts *o, const stn_box *b);
/* After `done` steps: each time axis cut to the snapshots of steps [0, done], the attributes, complete = 1,
 * the file closed, synced and renamed into place; the writer freed (also on failure). */
int stn_h5_commit(stn_h5 *h, int64_t done);
/* The temporary removed, the writer freed (NULL is fine). */
void stn_h5_abort(stn_h5 *h);

#endif /* STN_HDF5_H */
