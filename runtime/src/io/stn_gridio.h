/*
 * stn_gridio.h -- grid files on flash and the asynchronous IO queue that moves their rows.
 *
 * Private to the runtime (the out-of-core engine, runtime/src/ooc*.c, is its user); generated
 * code never sees it.  Conventions as in stn_rt.h: 0 or a negative errno value, a message in
 * stn_errmsg() naming the file, the sizes and the cause, nothing calls exit().
 *
 * Layout of a grid file.  x is contiguous; every x-row holds nx elements followed by padding up
 * to row_bytes, a multiple of the O_DIRECT alignment.  Plane z, row y starts at byte offset
 * (z * ny + y) * row_bytes (the plain layout; a file chunked along y places its rows through its chunk
 * table instead, gridchunks.c, below).  So any run of whole rows is one aligned transfer whatever nx is, and
 * the bytes moved for rows [y0, y1) of planes [z0, z1) are exactly
 * (y1 - y0) * (z1 - z0) * row_bytes -- the figure the IO model must predict (stn_grid_row_bytes
 * gives row_bytes before any file exists).  The padding's content is unspecified: whatever the
 * writer's buffer held there.
 *
 * Threading.  Nothing here locks.  A stn_aio queue belongs to one thread (the engine's main
 * thread), which submits and waits while OpenMP threads compute; never call any of this from
 * inside an OpenMP parallel region.  The kernel moves the data in the background; a buffer
 * handed to stn_aio_read/stn_aio_write must stay allocated and untouched (write: unmodified,
 * read: unread) until its group has been waited for.
 */
#ifndef STN_GRIDIO_H
#define STN_GRIDIO_H

#include "base/stn_internal.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ alignment, free space */

/* The O_DIRECT alignment (of file offsets, transfer sizes and memory) for files in `dir`, a
 * power of two:
 *   1. statx(STATX_DIOALIGN) of a temporary file created in dir (O_TMPFILE, else a named file
 *      that is unlinked at once): max(stx_dio_offset_align, stx_dio_mem_align), when the kernel
 *      (>= 6.1) and the file system report it (ext4, xfs, btrfs, f2fs, ... ; not tmpfs);
 *   2. else queue/logical_block_size of the block device holding dir, from /sys/dev/block/MAJ:MIN
 *      (a partition's figure is its parent disk's);
 *   3. else 4096 (no block device behind dir -- overlayfs, tmpfs, btrfs anonymous devices, NFS --
 *      or no sysfs).
 * `source` (n bytes, may be NULL) receives where the figure came from, for the report.
 * Fails (-ENOENT, -ENOTDIR, ...) only when dir cannot be examined at all. */
int stn_dio_alignment(const char *dir, size_t *align, char *source, size_t n);
/* The alignment direct IO on the open file fd needs, offset and memory alike (the larger of statx's two,
 * at least 512; 4096 where the kernel does not say); -EINVAL where statx says the file cannot do it. */
int stn_dio_align_of(int fd, size_t *align);

/* Bytes of free space in the file system of `dir` available to unprivileged users
 * (statvfs f_bavail * f_frsize). */
int stn_statvfs_free(const char *dir, uint64_t *free_bytes);

/* row_bytes of a grid file: nx * esz rounded up to a multiple of align (a power of two);
 * -1 if that overflows or an argument is not positive. */
int64_t stn_grid_row_bytes(int64_t nx, int64_t esz, size_t align);

/* ------------------------------------------------------------------ grid files */

typedef struct stn_gridfile {
    int fd;
    char *path;         /* owned copy; NULL when not open */
    int direct;         /* 1: opened O_DIRECT; 0: buffered (fallback or requested) */
    int64_t nx, ny, nz; /* grid shape (nz = 1 in 2d) */
    int64_t esz;        /* bytes per element */
    int64_t row_bytes;  /* stn_grid_row_bytes(nx, esz, align) */
    int64_t file_bytes; /* nz * ny * row_bytes: the size of the file */
    size_t align;       /* the alignment rows were padded to */
    char *map;          /* --tier pmem: the whole file mapped by libpmem (NULL: the aio tier) */
    size_t map_len;     /* the mapping's length */
    int is_pmem;        /* libpmem's is_pmem of the mapping: 0 on a file system without DAX */
    int nchunks;        /* chunks along y (docs/design/023): 1 is the plain layout */
    int64_t *chunk_y;   /* nchunks + 1 edges, 0 = Y_0 < Y_1 < ... < Y_n = ny (NULL: plain, one chunk) */
    int nparts;         /* files along y (gridparts.c; --dir a,b): 0: the one file above */
    struct stn_gridfile *part; /* nparts files: part k holds the rows [part_y[k], part_y[k + 1]) */
    int64_t *part_y;           /* nparts + 1 slab edges, 0 = part_y[0] < ... < part_y[nparts] = ny */
    int64_t y_base;            /* a part: the row of the whole grid its row 0 is (for messages) */
} stn_gridfile;

enum {
    STN_GRIDFILE_CREATE = 1,   /* create or truncate (mode 0600) and size the file */
    STN_GRIDFILE_BUFFERED = 2, /* do not use O_DIRECT (tests; file systems that misbehave with it) */
    STN_GRIDFILE_PMEM = 4,     /* --tier pmem: map the file with libpmem (pmem.c), no O_DIRECT */
};

/* Open `path` read-write for a grid of nx * ny * nz elements of esz bytes, rows padded to
 * `align` (stn_dio_alignment's figure, or any power-of-two multiple of it).
 *   flags & STN_GRIDFILE_CREATE: create or truncate the file (0600) and size it to file_bytes
 *     with fallocate, so that a full disk fails now and not hours later (ftruncate, i.e. a sparse
 *     file, where the file system cannot reserve).  On failure the file is unlinked; ENOSPC and
 *     EFBIG messages give the size needed and the space free.
 *   otherwise: the file must exist and be at least file_bytes long (else -EINVAL naming the
 *     sizes); it is never truncated.
 * O_DIRECT is used unless the file system refuses it (EINVAL: tmpfs before Linux 6.6, some FUSE),
 * reports no direct-IO support for the file (statx), or flags has STN_GRIDFILE_BUFFERED; then the
 * file is used buffered and f->direct = 0 (the caller should warn once: page cache, memory
 * budget).  align is checked against the file's statx O_DIRECT alignment where reported.
 * On failure *f is left closed (f->path == NULL, f->fd == -1). */
int stn_gridfile_open(stn_gridfile *f, const char *path, int64_t nx, int64_t ny, int64_t nz, int64_t esz,
                      size_t align, int flags);
/* What was written (and completed) is on stable storage: fdatasync, or for a mapped file (--tier pmem)
 * pmem_persist of the mapping when it is persistent memory, else pmem_msync. */
int stn_gridfile_sync(stn_gridfile *f);
/* Close and free the path; does not unlink.  Safe on a failed open, a closed or a zeroed struct.
 * Wait for the file's requests first. */
void stn_gridfile_close(stn_gridfile *f);

/* ------------------------------------------------------------------ chunks along y (docs/design/023) */

/* A grid file may be chunked along y: chunk c holds rows [Y_c, Y_(c+1)) of every plane, planes in z
 * order inside the chunk, so plane z, row y (Y_c <= y < Y_(c+1)) starts at byte
 *   Y_c * nz * row_bytes + (z * (Y_(c+1) - Y_c) + (y - Y_c)) * row_bytes.
 * One chunk (Y_1 = ny) is the plain layout above, (z * ny + y) * row_bytes.  The rows of one chunk, whole
 * chunk wide, are one contiguous run for any range of planes.  The file's size and the bytes any span
 * moves do not depend on the chunks.
 *
 * Set the chunks of f to the `n` inner edges e[0] < ... < e[n-1], each in (0, ny) (n = 0: plain).  What
 * the file held is not moved: set them before the file is written whole.  -EINVAL naming the file and
 * the bad edge; -ENOMEM. */
int stn_gridfile_set_chunks(stn_gridfile *f, const int64_t *e, int n);
/* The byte offset of plane z, row y of f (0 <= z < nz, 0 <= y < ny). */
uint64_t stn_gridfile_offset(const stn_gridfile *f, int64_t z, int64_t y);
/* The chunk c holding row y (0 <= y < ny), its rows [*lo, *hi). */
int stn_gridfile_chunk(const stn_gridfile *f, int64_t y, int64_t *lo, int64_t *hi);

/* ------------------------------------------------------------------ gridparts.c: a grid file in parts along
 * y */

/* A grid file may live in several files (--dir a,b: one a NUMA node's directory): part k holds the rows
 * [Y_k, Y_(k+1)) of every plane, 0 = Y_0 < Y_1 < ... < Y_n = ny (slab[0 .. n]).  The slab edges are always
 * chunk edges (stn_gridfile_set_chunks adds them to any table it is given; the plain layout becomes the
 * slabs' chunks), so the rows of part k are the bytes [Y_k * nz * row_bytes, Y_(k+1) * nz * row_bytes) of
 * the one file the chunk table describes, and part k is that range on its own: a file of
 * (Y_(k+1) - Y_k) * nz * row_bytes bytes, chunked by the edges inside its slab.  A transfer is already cut
 * at chunk edges, so each of its pieces lies in one part; the bytes moved do not change.
 * Open (flags as stn_gridfile_open) paths[k] for part k, each sized or checked as that function does; the
 * whole f has fd -1, path paths[0] (for messages and as "open"), direct when every part is, map NULL and
 * map_len the parts' sum (--tier pmem), is_pmem when every part is.  n = 1 (or slab NULL) is
 * stn_gridfile_open(paths[0]).  With STN_GRIDFILE_CREATE the parts' directories are fsynced, so that a
 * commit (which syncs the state file's directory) finds the files of the others' too. */
int stn_gridfile_open_parts(stn_gridfile *f, const char *const *paths, const int64_t *slab, int n, int64_t nx,
                            int64_t ny, int64_t nz, int64_t esz, size_t align, int flags);
/* (gridchunks.c) The file that holds row y of f (f itself, or its part), and in *base the offset of its
 * byte 0 in the whole file: stn_gridfile_offset(f, z, y) - *base is the offset of plane z, row y in it. */
stn_gridfile *stn_gridfile_place(stn_gridfile *f, int64_t y, uint64_t *base);
/* Unlink every file of f (its parts or itself). */
void stn_gridfile_unlink(const stn_gridfile *f);

/* ------------------------------------------------------------------ the asynchronous queue */

typedef struct stn_aio stn_aio;

/* Completion group: a set of requests waited for together.  Zero it (STN_AIO_GROUP_INIT or
 * stn_aio_group_reset) before first use; it must stay valid (not go out of scope) until its
 * pending count is 0.  Completions accumulate: reset it to reuse it with a fresh error. */
typedef struct stn_aio_group {
    int pending;    /* requests queued and not yet completed */
    int error;      /* the first failure, -errno; 0 if none */
    uint64_t bytes; /* bytes actually moved by its requests so far */
    char msg[1024]; /* the message of the first failure */
} stn_aio_group;
#define STN_AIO_GROUP_INIT ((stn_aio_group){0})
void stn_aio_group_reset(stn_aio_group *g); /* pending must be 0 */

#define STN_AIO_DEFAULT_DEPTH 64
#define STN_AIO_DEFAULT_MAX_REQUEST ((size_t)8 << 20)
/* The most memory pieces (planes) one gathered request of a chunked file moves. */
#define STN_AIO_IOV 128

/* io_setup(depth): at most `depth` requests are in flight (submitted, not yet reaped) at any
 * time.  stn_aio_read/write never wait for the device: a call is held, and cut into requests
 * only as slots free up (oldest call first), whenever the queue is advanced -- by any later call,
 * stn_aio_poll, or a wait.  So a caller that queues more than `depth` requests' worth and then
 * computes should call stn_aio_poll between pieces of its work to keep the device busy.  At most
 * STN_AIO_JOBS calls are held; one more first reaps (blocking) until the oldest is cut up.
 * With depth D and max_request M at most D * M bytes move at once.
 * max_request: the largest single transfer, rounded down to a multiple of 4096 (at least 4096;
 * 0: STN_AIO_DEFAULT_MAX_REQUEST; at most 1 GiB).  A long span is cut into max_request pieces
 * (further rounded down to a multiple of the file's alignment), which may cut a row in two: both
 * pieces stay aligned, and the bytes counted are the same.
 * -EAGAIN when the system-wide limit fs.aio-max-nr is exhausted (the message gives the figures
 * and the sysctl); -ENOSYS without kernel AIO. */
int stn_aio_create(stn_aio **q, int depth, size_t max_request);
/* The DRAM stn_aio_create(depth) takes through stn_alloc, for budgets that count every buffer. */
uint64_t stn_aio_footprint(int depth);
/* Waits for everything in flight (updating its groups), then frees the queue.  NULL is fine. */
void stn_aio_destroy(stn_aio *q);
/* Count every request the queue makes from now on in h, by size (h outlives the queue's use; NULL
 * stops counting).  A short transfer's rest is not counted again. */
void stn_aio_count_sizes(stn_aio *q, stn_req_sizes *h);

/* Rows [y0, y1) of planes [z0, z1) of a grid file. */
typedef struct stn_span {
    int64_t y0, y1, z0, z1;
} stn_span;

/* Queue the transfer of the span sp = rows [y0, y1) of planes [z0, z1) between file f and memory: plane z,
 * row y lives at buf + (z - z0) * buf_plane_bytes + (y - y0) * f->row_bytes.
 * Requirements (else -EINVAL, nothing queued): 0 <= y0 <= y1 <= ny, 0 <= z0 <= z1 <= nz; buf and
 * buf_plane_bytes multiples of f->align (4096-aligned buffers suffice for align <= 4096);
 * buf_plane_bytes >= (y1 - y0) * row_bytes when z1 - z0 > 1.  An empty range queues nothing.
 * One request per plane, merged into one span across planes when both sides are contiguous
 * (y0 == 0, y1 == ny, buf_plane_bytes == ny * row_bytes, or a single plane), each request at
 * most max_request bytes.  In a chunked file the span is cut at the chunks' edges; a part that is
 * whole chunk wide is one contiguous run in the file for all its planes, moved in requests of at
 * most max_request bytes (and STN_AIO_IOV planes) that gather the planes from memory (preadv /
 * pwritev); a narrower part is one request per plane.  Rows outside the range and the buffer's gaps between
 * planes are never touched. Every request is counted in g->pending (g may be NULL: then only stn_aio_wait_all
 * reports its errors).  On completion its bytes go to g->bytes and to st->bytes_read / st->bytes_written (st
 * may be NULL) -- exactly the bytes the kernel moved.  A short transfer resubmits the remainder when it is
 * aligned, counting only what moved; one that makes no progress, or ends at an unaligned offset, is an error
 * (-EIO) naming the file, the offset, the bytes expected and moved, and the file's size.  Failures are
 * recorded in g (and the queue); the return value is 0 or the error of a request that could not even be
 * submitted -- in which case the call's other requests may still be in flight: wait for g before reusing buf.
 * Time spent blocked (a full queue, io_submit itself) goes to st->seconds[STN_PHASE_WAIT]. */
int stn_aio_read(stn_aio *q, stn_gridfile *f, const stn_span *sp, void *buf, size_t buf_plane_bytes,
                 stn_aio_group *g, stn_stats *st);
int stn_aio_write(stn_aio *q, stn_gridfile *f, const stn_span *sp, const void *buf, size_t buf_plane_bytes,
                  stn_aio_group *g, stn_stats *st);

/* Reap what has completed (without waiting), cut held calls into the slots that frees, and
 * submit them: keeps the device busy while the caller computes.  Returns a failure to poll or
 * submit; request failures go to their groups, as with wait. */
int stn_aio_poll(stn_aio *q, stn_stats *st);

/* Hand queued requests to the kernel now without waiting.  read, write and wait already do, so
 * this is rarely needed.  Returns a submission failure, as above. */
int stn_aio_submit(stn_aio *q, stn_stats *st);

/* Wait until every request of g has completed (completing other groups' requests on the way).
 * Time blocked goes to st->seconds[STN_PHASE_WAIT].  Returns g->error and records g->msg as
 * stn_errmsg() when it is not 0. */
int stn_aio_wait(stn_aio *q, stn_aio_group *g, stn_stats *st);
/* Wait until nothing is queued or in flight.  Returns the first failure of any request since
 * the previous stn_aio_wait_all (also those already reported through their group), and forgets
 * it. */
int stn_aio_wait_all(stn_aio *q, stn_stats *st);

/* ------------------------------------------------------------------ pmem.c: the pmem tier's copies */

/* Map the open file f->path whole with pmem_map_file (f->map, f->map_len, f->is_pmem); a failure names
 * the file, its size and libpmem's cause.  stn_gridfile_open calls it for STN_GRIDFILE_PMEM. */
int stn_pmem_map(stn_gridfile *f);
void stn_pmem_unmap(stn_gridfile *f); /* safe when not mapped */
/* pmem_persist (is_pmem) or pmem_msync of the whole mapping. */
int stn_pmem_sync(stn_gridfile *f);
/* stn_aio_read/write's transfer for a mapped file, done before it returns: each plane's rows copied
 * (memcpy from the mapping; pmem_memcpy_nodrain into it, then one pmem_drain), the bytes counted in g
 * and st as the queue counts its completions, the time in st's READ or WRITE phase.  The span and the
 * buffer are the caller's checked ones. */
int stn_pmem_transfer(stn_gridfile *f, int write, const stn_span *sp, char *buf, size_t plane,
                      stn_aio_group *g, stn_stats *st);

/* Requests submitted and not yet completed; requests queued but not yet submitted plus calls
 * held and not yet cut into requests. */
int stn_aio_in_flight(const stn_aio *q);
int stn_aio_queued(const stn_aio *q);

#endif /* STN_GRIDIO_H */
