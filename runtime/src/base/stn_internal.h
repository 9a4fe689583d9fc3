/*
 * stn_internal.h -- what the runtime's source files share and generated code never sees.
 *
 * Every .c file defines _GNU_SOURCE before its first include (the Python driver compiles
 * every runtime/src .c file without extra definitions, so nothing here may depend on a generated
 * config header or on command-line macros).
 */
#ifndef STN_INTERNAL_H
#define STN_INTERNAL_H

#include "base/stn_device.h"
#include "stn_rt.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ------------------------------------------------------------------ OpenMP, optional */

/* The runtime also builds without -fopenmp (then everything runs on one thread); the pragma
 * goes through a macro so that such a build has no unknown-pragma warnings either. */
#ifdef _OPENMP
#define STN_OMP_PARALLEL _Pragma("omp parallel")
#else
#define STN_OMP_PARALLEL
#endif

static inline int stn_omp_max_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
static inline void stn_omp_set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}
static inline int stn_omp_thread_num(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
static inline int stn_omp_num_threads(void) {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* ------------------------------------------------------------------ desc.c */

/* A broken descriptor is a compiler bug: 0, or -EINVAL saying so (instead of crashing later). */
int stn_desc_check(const stn_program_desc *d);

/* ------------------------------------------------------------------ checkpoint.c */

/* A checkpoint's manifest, DIR/NAME.checkpoint.json: its steps, size and levels ("u", "u.prev"). */
typedef struct stn_ckpt {
    int64_t steps_done, size[3];
    int nlevels;
    char **levels;
} stn_ckpt;
/* Written atomically, after the levels' DIR/LEVEL.npy; 0 or -errno with the message. */
int stn_ckpt_write(const char *dir, const char *name, int64_t steps_done, const int64_t size[3], int nlevels,
                   const char *const *levels);
/* Read and checked (a checkpoint of stencil `name`); 0 or -errno naming the file and the cause. */
int stn_ckpt_read(const char *dir, const char *name, stn_ckpt *ck);
void stn_ckpt_free(stn_ckpt *ck);

/* ------------------------------------------------------------------ error.c */

void stn_error_clear(void);

/* ------------------------------------------------------------------ error.c: messages */

/* -e for an errno value e > 0; -EIO when errno was (unexpectedly) 0. */
int stn_neg_errno(int e);
/* "1.50 GiB" style, for messages; returns buf. */
const char *stn_fmt_bytes(char *buf, size_t n, uint64_t bytes);

/* ------------------------------------------------------------------ mem.c: the memory policy */

/* Every share of the DRAM figure and of a run's budget (bytes), named once: */
/* the default reserve, left to the page cache, the program and the rest of the system: 1/DEN of the DRAM
 * figure (the default budget is the rest; a machine file may give its own reserve) */
#define STN_MEM_RESERVE_DEN 4
uint64_t stn_mem_reserve(uint64_t dram);
/* the budget of each of `ranks` MPI ranks sharing one machine's (an equal share) */
uint64_t stn_mem_per_rank(uint64_t budget, int ranks);
/* the grid on which the kernels' rate is measured at startup: a quarter of the budget, at most 16 MiB */
uint64_t stn_mem_rate_grid(uint64_t budget);
/* the two buffers of the DRAM copy rate's measurement: at most an eighth of the budget */
uint64_t stn_mem_copy_buffers(uint64_t budget);
/* MPI, out of core: the buffers of the ghosts' exchange deferred beside the next sweep (its low edges
 * sent, its high ghosts received), counted in the plan: at most an eighth of the budget, or the exchange
 * blocks whole */
uint64_t stn_mem_ghosts(uint64_t budget);
/* --save-to: the pieces the snapshots are read and gathered in (two of them held at a time): 1/64 of the
 * budget, at least 64 KiB (or one cell), at most 4 MiB */
#define STN_MEM_SNAP_DEN 64
#define STN_SNAP_PIECE_MIN ((uint64_t)64 << 10)
#define STN_SNAP_PIECE_MAX ((uint64_t)4 << 20)
uint64_t stn_mem_snap_piece(uint64_t budget);
/* the arrays of the rate measured on a plan's blocks: the larger of STN_RATE_MAX_BYTES and 4 x the
 * last-level cache `llc`, at most the budget */
#define STN_RATE_MAX_BYTES ((uint64_t)64 << 20)
uint64_t stn_mem_block_rate(uint64_t budget, uint64_t llc);
/* out of core with --init files: the bounce they are read through with O_DIRECT (io/npyd.c), counted in the
 * plan: STN_NPY_BOUNCE_SLOTS slots of 1/512 of the budget, 16 KiB to 1 MiB each, in 4 KiB; 0 (the page cache)
 * under a 4 MiB budget */
#define STN_NPY_BOUNCE_SLOTS 16
uint64_t stn_mem_npy_bounce(uint64_t budget);
/* The buffers of the IO load under which a run measures its plan's kernels at startup (ooc_setup.c,
 * plan_share): 1/16 of the budget, at most 8 MiB, less what the window's arrays leave of the budget. */
uint64_t stn_mem_share_load(uint64_t budget);

/* ------------------------------------------------------------------ stats.c */

/* Forget the allocation peak (alloc.c) and, where the kernel allows, the process' peak RSS, so
 * that each stn_program_main reports its own run. */
void stn_stats_reset_peaks(void);
/* A histogram of IO request sizes (the io layer counts every aio request it makes, by size): bucket k
 * holds requests of [stn_req_floor(k), stn_req_floor(k + 1)) bytes, the first from 0, the last without
 * an end: floors 0, 8K, 16K, ... 8M.  [0]: reads, [1]: writes. */
#define STN_REQ_BUCKETS 12
typedef struct stn_req_sizes {
    uint64_t count[2][STN_REQ_BUCKETS];
    uint64_t bytes[2][STN_REQ_BUCKETS];
} stn_req_sizes;
uint64_t stn_req_floor(int k);
void stn_req_count(stn_req_sizes *h, int write, uint64_t bytes);
/* Seconds since this program started (exec): the process's age by /proc, or since the runtime was loaded
 * where the process is much older (a shell or a wrapper that exec'd the program in place). */
double stn_process_age(void);
/* st->seconds[phase] += stn_now() - t0; st may be NULL. */
void stn_stats_add_time(stn_stats *st, int phase, double t0);
/* The median of the n values at a (the lower one of an even count; sorted in place); 0 for none: the
 * rate of timed rounds, which one disturbed round does not move. */
double stn_median(double *a, int n);

/* Resident memory now, a page mapped twice counted once (0 if unknown); see stats.c. */
uint64_t stn_pss_bytes(void);

/* ------------------------------------------------------------------ alloc.c */

/* stn_alloc, stn_free and the live and peak engine memory are declared in stn_rt.h. */
/* Count memory the engine obtained other than through stn_alloc (+ when taken, - when freed). */
void stn_mem_account(int64_t delta);
/* Zeroed scratch memory for a measurement at startup, mapped (NULL when the system refuses) and given
 * back to the system at once by stn_scratch_unmap (malloc would keep such blocks in its heap). */
void *stn_scratch_map(size_t n);
void stn_scratch_unmap(void *p, size_t n);
/* The allocation peak restarts at the live amount. */
void stn_alloc_reset_peak(void);

/* ------------------------------------------------------------------ ring.c */

/* `nplanes` ring buffers of `bytes` each (a multiple of the page size), plane p at
 * p * 2 * bytes, each mapped twice back to back, so that any run of up to `bytes` starting
 * inside a plane's first copy is contiguous in virtual memory, wrap or not.  Counted as engine
 * memory (nplanes * bytes).  NULL (with a message) on failure. */
void *stn_ring_alloc(size_t bytes, int64_t nplanes);
void stn_ring_free(void *p, size_t bytes, int64_t nplanes);
/* An IO buffer of n bytes aligned to `align` (stn_alloc'd, stn_free it; 2 MiB aligned from 2 MiB on), its
 * whole 2 MiB gathered into 2 MiB pages as the rings' are: O_DIRECT requests out of it are physically
 * contiguous. NULL (with a message) on failure; the pages left small are no failure. */
void *stn_io_alloc(size_t n, size_t align);
/* The bytes of the rings and IO buffers made so far that were gathered into 2 MiB pages and those left
 * in 4 KiB pages (a tail past the last whole 2 MiB, or all of one the kernel refused), and the errno of
 * the last refusal (0: none); returns the number of refusals. */
int stn_io_pages(uint64_t *huge, uint64_t *small, int *err);
/* The seconds spent gathering them (touching a page of each 2 MiB and MADV_COLLAPSE: the kernel may
 * compact memory to find free 2 MiB frames), over the process. */
double stn_io_pages_seconds(void);

/* ------------------------------------------------------------------ file.c */

/* Process pid has ended: no such process, or a zombie nobody has reaped (a killed run's temporaries
 * are taken over or removed only then). */
int stn_pid_gone(long pid);
/* pread exactly n bytes at off; the message names the file, the sizes and the cause. */
int stn_pread_full(int fd, void *buf, size_t n, uint64_t off, const char *path);
/* The same, by up to STN_PREAD_READERS threads at once, each taking the next STN_PREAD_CHUNK bytes
 * not yet taken (so the reads stay near each other and the device sees several at a time); one
 * thread below two chunks, or when no thread starts.  *readers (if not NULL): the threads that took
 * part, the caller included (how many chunks each read is up to the scheduler: on a busy machine the
 * first may take them all).  The first failure's message; the other threads stop at their next chunk. */
#define STN_PREAD_READERS 8
#define STN_PREAD_CHUNK ((size_t)4 << 20)
int stn_pread_parallel(int fd, void *buf, size_t n, uint64_t off, const char *path, int *readers);
/* write exactly n bytes at the current offset. */
int stn_write_full(int fd, const void *buf, size_t n, const char *path);
int stn_pwrite_full(int fd, const void *buf, size_t n, uint64_t off, const char *path);

/* A file written atomically: everything goes to `.<basename>.partial-<pid>` in the same
 * directory; commit fsyncs it and renames it over `path`; abort unlinks it. */
#define STN_AFILE_RANGES 64
typedef struct stn_afile {
    int fd;
    int created; /* the temporary exists and is ours to unlink */
    int synced;
    char *path; /* the final name */
    char *tmp;  /* the temporary beside it */
    char *dir;  /* their directory, fsynced after the rename */
    /* write-behind (stn_afile_behind): the ranges whose writeback was started, oldest first */
    int behind_off; /* the file system refused sync_file_range: the page cache alone */
    int nbehind, behind0;
    uint64_t behind_lo[STN_AFILE_RANGES], behind_n[STN_AFILE_RANGES], behind_bytes;
    uint64_t span_lo, span_n; /* the contiguous bytes written last, their write-back not started yet */
} stn_afile;

/* size_hint > 0: reserve that many bytes now (fallocate) so that a full disk fails early. */
int stn_afile_open(stn_afile *af, const char *path, uint64_t size_hint);
/* An input file (--init, a series, points), opened read-only: its fd, or a negative errno with the
 * message ("cannot open 'P': ..."; a FIFO, device or directory is refused without blocking). */
int stn_open_input(const char *path);
int stn_afile_write(stn_afile *af, const void *buf, size_t n);
/* Write-behind for a large file written through the page cache: bytes [off, off + n) were just written.
 * Contiguous writes gather into a span; a span of STN_AFILE_SPAN bytes, or one of STN_AFILE_SPAN_MIN at
 * least when a write elsewhere ends it, is sent to the device now (sync_file_range), and once more than
 * STN_AFILE_BEHIND bytes are on their way the oldest are waited for and dropped from the cache.  A big
 * --out then holds about that much of the page cache (charged to the job's memory cgroup, where 2 GiB of
 * dirty pages stalled the export at the cap) and reaches the device while the next rows are read; smaller
 * scattered writes are left to the kernel's write-back.  0, or the write-back's error. */
#define STN_AFILE_BEHIND ((uint64_t)16 << 20)
#define STN_AFILE_SPAN ((uint64_t)1 << 20)
#define STN_AFILE_SPAN_MIN ((uint64_t)64 << 10)
int stn_afile_behind(stn_afile *af, uint64_t off, uint64_t n);
int stn_afile_sync(stn_afile *af);   /* fsync the temporary (commit does it if needed) */
int stn_afile_rewind(stn_afile *af); /* the temporary emptied, to be written again from its start */
int stn_afile_commit(stn_afile *af); /* close, rename, fsync the directory; unlinks on failure */
void stn_afile_abort(stn_afile *af); /* close and unlink; safe on a zeroed or closed stn_afile */

/* Whether two paths name the same file: same string, same inode, or same canonical path
 * (realpath of the directory + basename, which also works for files that do not exist). */
int stn_same_file(const char *a, const char *b);

/* ------------------------------------------------------------------ npy.c */

/* Several processes writing one .npy (MPI ranks): one opens it (stn_npy_writer_open), the others join
 * its temporary, each writes its part (`expect` bytes: finish checks them), all finish, then the opener
 * commits and the others abort (which unlinks only what it created: nothing). */
int stn_npy_writer_join(const char *path, const char *tmp, const char *descr, int ndim, const int64_t *shape,
                        stn_npy_writer **w);
const char *stn_npy_writer_tmp(const stn_npy_writer *w);
/* Read slices [first, first + count) along the slowest axis (shape[0]) of the C-order array of `shape`
 * (stn_pread_parallel: several reads in flight). */
int stn_npy_load_part(const char *path, const char *descr, int ndim, const int64_t *shape, int64_t first,
                      int64_t count, void *dst, stn_stats *st);
void stn_npy_writer_expect(stn_npy_writer *w, uint64_t bytes);
/* Read the box [lo, lo + n) (box = lo, n; x, y, z; global indices) of the C-order array of `shape`
 * (slowest first: ndim 1, 2 or 3) into dst, x fastest, rows dst_strides[0] and planes dst_strides[1]
 * elements apart: a row of n[0] elements a pread. */
int stn_npy_load_box(const char *path, const char *descr, int ndim, const int64_t *shape,
                     const int64_t box[2][3], void *dst, const int64_t dst_strides[2], stn_stats *st);

/* Bytes per element of a plain numeric descr such as "<f8" (0 if not one). */
int stn_npy_elem_size(const char *descr);
/* Check that all data was written and fsync it, so that commit is only a rename. */
int stn_npy_writer_finish(stn_npy_writer *w);
/* Write data bytes [off, off + nbytes) of the array (any order; each byte exactly once, so that
 * finish can tell a complete file). */
int stn_npy_writer_pwrite(stn_npy_writer *w, const void *data, size_t nbytes, uint64_t off, stn_stats *st);

/* ------------------------------------------------------------------ numa.c: threads and memory per node */

#define STN_NUMA_MAX_NODES 64
typedef struct stn_numa_node {
    int os_index, pus;         /* the node's number and its processing units */
    uint64_t memory;           /* its local memory, bytes (hwloc) */
    int first_thread, threads; /* OpenMP threads [first_thread, first_thread + threads) run on it */
    const char *dir;           /* --dir a,b (one directory a node): its directory (NULL: one --dir) */
    int64_t y0, y1;            /* and its rows [y0, y1) of the grid, whose files live there */
    int64_t cy0, cy1, crows;   /* computed: the rows [cy0, cy1) its threads computed, crows (y, z) rows */
    uint64_t
        buffer_bytes; /* the engine's buffers of its rows (slab), bound to it (stn_numa_bind_rows, _slabs) */
    int64_t s0, s1;   /* in-core: its slab [s0, s1) along slab_axis of every array */
} stn_numa_node;
typedef struct stn_numa {
    int nodes;         /* NUMA nodes with processing units; 1: nothing placed, nothing reported */
    int nthreads;      /* the threads placed */
    int threads_bound; /* of which bound to their node (hwloc_set_cpubind, read back); 0 when not applied */
    char source[256];  /* the topology: this machine, HWLOC_XMLFILE or HWLOC_SYNTHETIC */
    char memory[160];  /* the memory policy set, or why none */
    int dirs;          /* --dir a,b: the directories, one a node (the out-of-core engine's slabs); 0: one */
    int computed;      /* the nodes' computed rows are the kernels' counts (with dirs) */
    char buffers[160]; /* with dirs or slabs: how the engine's buffers were placed per node, or why not */
    int slab_axis;     /* in-core, one process: the axis (2: z; 1: a 2d grid's y) cut into one slab a node */
    int local_rank;    /* MPI ranks on one machine (stn_numa_place_rank): this rank's among them, else -1 */
    int rank_node;     /* and the node (index into node[]) it runs on and allocates from */
    int rank_by;       /* how rank_node was chosen: STN_NUMA_BY_CPUSET or STN_NUMA_BY_RANK (0: not placed) */
    int rank_spans;    /* STN_NUMA_BY_RANK: the nodes its binding meets (0: none of them; -1: not bound) */
    stn_numa_node node[STN_NUMA_MAX_NODES];
} stn_numa;
/* Place a run's nthreads OpenMP threads on the NUMA nodes hwloc finds (each node a contiguous group,
 * its share by processing units), bind them there and interleave the process's later allocations over
 * the nodes; a topology not this system's (HWLOC_XMLFILE without HWLOC_THISSYSTEM=1) is planned, not
 * applied.  One node (or no topology): *n says 1 node and nothing is done.  Never fails the run: 0. */
int stn_numa_place(stn_numa *n, int nthreads);
/* The NUMA nodes with processing units hwloc finds (HWLOC_XMLFILE and HWLOC_SYNTHETIC apply): 1 without a
 * topology.  (--dir a,b is checked against it.) */
int stn_numa_count(void);
/* MPI: an MPI rank that shares the machine with others (local_rank of them on this machine), or is given a
 * --dir list, placed whole on one node, stn_numa_rank_node's (its binding's, else local_rank mod nodes): its
 * nthreads threads bound to that node's units and its memory bound to that node's (hwloc_set_membind,
 * HWLOC_MEMBIND_BIND); the other nodes listed without threads. Planned, not applied, under a topology not
 * this system's; one node: nothing (*n says 1).  Never fails: 0. */
int stn_numa_place_rank(stn_numa *n, int nthreads, int local_rank);
/* MPI: the node (index among the nodes with processing units, hwloc's order: a --dir list's entry) an MPI
 * rank runs on: the one node whose units its binding (sched_getaffinity, matched to the topology's units by
 * their os_index, so that an XML topology reads this machine's binding) meets (*by STN_NUMA_BY_CPUSET), else,
 * when it meets several or none, or it is not bound (affine to every online CPU), local_rank mod nodes (*by
 * STN_NUMA_BY_RANK, *spans the nodes it meets, -1 not bound).  One node (or no topology): 0, *by 0.
 * stn_numa_place_rank places a rank on this node. */
enum { STN_NUMA_BY_CPUSET = 1, STN_NUMA_BY_RANK = 2 };
int stn_numa_rank_node(int local_rank, int *by, int *spans);
/* Node k's rows [y0, y1) of every slot of each buffer (nbufs buffers of nslots slots of `slot` bytes, a row
 * `row` bytes at y x row in a slot) bound to node k's memory (hwloc_set_area_membind, the whole pages inside
 * the rows; a page two nodes' rows share keeps the interleaved policy), node k's buffer_bytes counting its
 * rows' bytes and `buffers` saying what was done; a topology not this system's is planned (counted), not
 * applied.  Never fails the run. */
void stn_numa_bind_rows(stn_numa *n, char *const *bufs, int nbufs, size_t slot, int64_t nslots, size_t row);
/* [0, extent) cut into one slab a node in proportion to its threads (the nodes' groups are contiguous): node
 * k the slab [cut[k], cut[k + 1]) (cut: nodes + 1 entries; n->nthreads > 0). */
void stn_numa_cut(const stn_numa *n, int64_t extent, int64_t *cut);
/* In-core, one process on several nodes: the arrays (nbufs of nx x ny x nz elements of `elem` bytes) cut
 * along their slowest axis (z; y in 2d) into one slab a node in proportion to its threads, the split the
 * kernels' static schedule gives each node's contiguous threads, and each slab bound to its node
 * (slab_axis, the nodes' s0, s1, buffer_bytes and `buffers` say so).  A 1d grid (one row) or an MPI
 * rank (bound whole to one node): nothing bound.  Never fails the run. */
void stn_numa_bind_slabs(stn_numa *n, char *const *bufs, int nbufs, int64_t nx, int64_t ny, int64_t nz,
                         size_t elem);

/* ------------------------------------------------------------------ hw.c: the machine */

/* One figure of the machine and where it came from (value 0: unknown or none). */
typedef struct stn_hw_fig {
    uint64_t value;
    char source[200];
} stn_hw_fig;

/* The machine a plan is made for. */
typedef struct stn_hw {
    char machine[96];      /* "this machine", or the name in the --machine file */
    char description[256]; /* a --machine file's description */
    int described;         /* from --machine, not discovered */
    char dram_from[48];    /* which source gave the DRAM figure (discovered) */
    stn_hw_fig cores, pus, sockets, numa_nodes;
    stn_hw_fig l2, l3;                            /* bytes: per core, per socket */
    stn_hw_fig dram_hwloc, mem_available, cgroup; /* discovered sources of the DRAM figure */
    stn_hw_fig dram;                              /* the figure planned from: the smallest of them */
    stn_hw_fig reserve;                           /* left to the system; budget = dram - reserve */
    stn_hw_fig block;                             /* the device's block size (O_DIRECT alignment) */
    stn_device dev;                               /* its bandwidth curves (when dev_keys == 3) */
    int dev_keys;                                 /* 1: "read" given, 2: "write", 3: both */
    double cells_per_second;                      /* "cells_per_second" of a machine file (0: none) */
    double copy_bytes_per_second;                 /* "copy_bytes_per_second" of a machine file (0: none) */
} stn_hw;

int stn_hw_discover(stn_hw *hw);
/* Read a machine description (docs/machines.md); the message names the file, line and key. */
int stn_hw_load_machine(const char *path, stn_hw *hw);
/* The default DRAM budget: dram - reserve; `source` says where it came from. */
uint64_t stn_hw_budget(const stn_hw *hw, char *source, size_t n);

/* ------------------------------------------------------------------ progress.c: the progress line */

typedef struct stn_progress {
    const char *name;
    int64_t total;         /* steps */
    double cells_per_step; /* for the rate */
    double t0, last;       /* loop start, last line printed */
    int enabled, tty, shown;
    int width; /* of the last line written on a tty */
} stn_progress;

void stn_progress_start(stn_progress *p, const char *name, int64_t total, double cells_per_step, int quiet);
void stn_progress_step(stn_progress *p, int64_t done); /* call after each step */
void stn_progress_end(stn_progress *p);
/* On a terminal the line is rewritten in place: a message printed meanwhile (a warning, an error)
 * first ends it (stn_progress_break); stn_progress_line_open says whether one is open (a signal
 * handler writes its own newline). */
void stn_progress_break(void);
int stn_progress_line_open(void);

/* ------------------------------------------------------------------ args.c: the command line */

/* STN_MODE_INCORE, _OOC, _MMAP, ...: the engines of base/stn_engines.def, in its order */
/* clang-format off */
enum {
#define STN_ENGINE(NAME, name, ops) STN_MODE_##NAME,
#include "base/stn_engines.def"
#undef STN_ENGINE
    STN_NMODES
};
/* clang-format on */
enum { STN_TUNER_NONE = -1, STN_TUNER_BLK = 0, STN_TUNER_NAIVE, STN_TUNER_BRUTE };
enum { STN_SCHED_NONE = -1, STN_SCHED_REF = 0, STN_SCHED_ALG1, STN_SCHED_ALG2 };
enum { STN_STRIP_NONE = 0, STN_STRIP_DRAM, STN_STRIP_FILE };
enum { STN_RANK_NONE = -1, STN_RANK_TIME = 0, STN_RANK_BYTES };
enum { STN_TIER_AIO = 0, STN_TIER_PMEM }; /* --tier: the out-of-core scratch files' tier (docs/design/022) */

extern const char *const stn_mode_names[];     /* indexed by STN_MODE_* (modes.c) */
extern const char *const stn_tuner_names[];    /* indexed by STN_TUNER_* >= 0 */
extern const char *const stn_schedule_names[]; /* indexed by STN_SCHED_* >= 0 */
extern const char *const stn_strip_names[];    /* indexed by STN_STRIP_*: "none", "dram", "file" */
extern const char *const stn_rank_names[];     /* indexed by STN_RANK_* >= 0: "time", "bytes" */
extern const char *const stn_tier_names[];     /* indexed by STN_TIER_*: "aio", "pmem" */

/* --save FIELD:every=K[:from=A][:to=B][:stride=S] of one state field (save.c, docs/cli.md): its current
 * level after steps from, from + every, ... while at most `to` (step 0: the initial state), every
 * stride-th cell along each axis; every = 0: the field is not saved. */
typedef struct stn_save {
    int64_t every, from, to, stride;
    int to_given; /* to= was given (else to is --steps) */
} stn_save;

/* The parsed and validated command line.  Strings point into argv. */
typedef struct stn_opts {
    int64_t size[3]; /* nx, ny, nz (nz = 1 in 2d) */
    const char *size_text;
    int64_t steps;
    const char *dir; /* --dir, or the first of its list */
    int ndirs;       /* --dir a,b,...: the directories (1: one; several: one a NUMA node, args_check.c) */
    const char *dirs[STN_NUMA_MAX_NODES];
    char *dirs_buf; /* (the list's copy that dirs point into; stn_opts_free frees it) */
    int rank_dirs;  /* MPI, --dir a,b: the list's length; each rank takes one entry (dir_entry), ndirs is 1 */
    int dir_entry;  /* and the entry this rank took: its node's (stn_numa_rank_node; one node: 0) */
    uint64_t mem;
    int mem_given;
    uint64_t gpu_mem; /* --gpu-mem: the device memory of --mode gpu / gpu-ooc (0: the device's free memory) */
    const char **init_path;   /* [2 * nfields]: [2f] current level, [2f + 1] previous; NULL: none */
    const char **out_path;    /* [2 * nfields], the same indexing */
    const char **series_path; /* [nseries]: --init NAME=FILE of each series; NULL: not given */
    const char **points_path; /* [npointsets]: --init NAME=FILE of each set of points */
    const char **record_path; /* [nrecords]: --out NAME=FILE of each record; NULL: not written */
    const char **along_path;  /* [nalong]: --init NAME=FILE of each input along an axis */
    double *params;           /* [nparams]: defaults, overridden by --param */
    int mode;                 /* STN_MODE_* */
    int tier;                 /* STN_TIER_*: --tier (aio by default) */
    int tuner;                /* STN_TUNER_* */
    int rank;                 /* STN_RANK_*: what the tuner minimises (NONE: time) */
    int have_block;
    int64_t block[3]; /* by, bz, bt (bz = 0 in 2d) */
    int strip;        /* STN_STRIP_*; -1: chosen by the plan (DRAM when the budget allows) */
    int schedule;     /* STN_SCHED_* */
    int resume, quiet, help, version;
    int plan_only;          /* --plan-only: choose and print the out-of-core plan, run nothing */
    const char *machine;    /* --machine FILE: plan for a described machine (with --plan-only) */
    int64_t iblock[2];      /* --iblock iy,iz (0: chosen by the tuner's step 1) */
    int64_t time_tiles[3];  /* --time-tiles by,bz,bt; all 0: auto; bt = -1: off (in-core) */
    int threads;            /* 0: not given */
    int64_t ranks[3];       /* --ranks PX,PY,PZ: the ranks along each axis (0: chosen, docs/design/019) */
    const char *ranks_text; /* --ranks as given */
    const char *report;
    stn_save *save;      /* [nfields]: --save of each field (every 0: none) */
    int nsaves;          /* the fields saved */
    const char *save_to; /* --save-to FILE.h5: the snapshots' HDF5 file (NULL: none) */
} stn_opts;

/* Parse and validate argv for a run of `nranks` MPI ranks (stn_par_size(): the MPI layer's count, 1
 * without MPI).  On failure the message is in stn_errmsg() and the caller exits with status 2.
 * stn_opts_free is safe after a failure. */
int stn_opts_parse(const stn_program_desc *d, int argc, char **argv, int nranks, stn_opts *o);
void stn_opts_free(stn_opts *o);
/* args_check.c: the line as a whole, once every option is read (stn_opts_parse's last step): the size
 * against the halo and 64-bit sizes, options that exclude each other, --ranks against nranks, outputs
 * against inputs and each other; sets --dir's default. */
int stn_opts_check(const stn_program_desc *d, stn_opts *o, int nranks);
/* Cells of the grid and bytes of one field, overflow already excluded by stn_opts_parse. */
int64_t stn_grid_cells(const stn_opts *o);
/* BT (o->block[2], with --block) at most the run's horizon: the steps, or STN_OPEN_MAX_BT for a
 * simulation opened without them (`open`); a sweep never runs more steps than there are, and the
 * plan's DRAM and the kernels' rate measured on its blocks grow with BT. */
#define STN_OPEN_MAX_BT 64
void stn_opts_bound_bt(stn_opts *o, int open);

/* ------------------------------------------------------------------ save.c: --save and --save-to */

/* STN_HAVE_HDF5: this runtime was compiled with libhdf5 (the driver passes its include directory when
 * the machine has it, compiler/stencilc/codegen/hdf5.py); without it --save-to is refused. */
#if defined(__has_include)
#if __has_include(<hdf5.h>) && __has_include(<hdf5_hl.h>)
#define STN_HAVE_HDF5 1
#endif
#endif
/* STN_H5_PARALLEL: the MPI build (STN_MPI) compiled against a parallel libhdf5 (Debian's
 * libhdf5-openmpi-dev, which the driver picks for --mpi when it is there): every rank writes its own cells
 * of the one file; without it rank 0 gathers them and writes (docs/design/021). */
#if defined(STN_HAVE_HDF5) && defined(STN_MPI)
#include <H5pubconf.h>
#ifdef H5_HAVE_PARALLEL
#define STN_H5_PARALLEL 1
#endif
#endif

/* Whether the ranks write the snapshot file together: the MPI build against the parallel libhdf5
 * (STN_H5_PARALLEL), several ranks, and not STENCILC_H5_GATHER=1 in the environment, which forces rank 0's
 * gathering with the parallel library too (for tests: the fallback's file against the parallel one). */
int stn_save_together(int nranks);

/* --save TEXT into o->save (the field's entry): 0 or -EINVAL naming the option, the value and what
 * would be accepted. */
int stn_save_parse(const stn_program_desc *d, const char *text, stn_opts *o);
/* The snapshots asked for, as a whole (stn_opts_check): --save and --save-to together, each spec
 * against --steps (to= defaults to it), the file against the run's other files, none with --plan-only,
 * --resume or MPI. */
int stn_save_check(const stn_program_desc *d, stn_opts *o, int nranks);
/* Whether step k is saved; the snapshots of steps [0, k) (the index of step k when it is saved). */
int stn_save_wants(const stn_save *s, int64_t k);
int64_t stn_save_before(const stn_save *s, int64_t k);
/* The first step at k or after it that is saved (INT64_MAX: none). */
int64_t stn_save_next(const stn_save *s, int64_t k);
/* The cells kept of [lo, hi) along an axis (the multiples of `stride`), and the first of them. */
int64_t stn_save_kept(int64_t lo, int64_t hi, int64_t stride);
int64_t stn_save_first(int64_t lo, int64_t stride);

/* ------------------------------------------------------------------ mapfile.c: --mode mmap's arrays */

/* 0 when `count` arrays of `bytes` fit in the free space of dir, else -ENOSPC with the sizes. */
int stn_map_space(const char *dir, size_t bytes, uint64_t count);
/* A shared mapping of `bytes` of a new file DIR/STENCIL.FIELD.LEVEL.mmap-XXXXXX, unlinked at once, its
 * blocks reserved first (a failure names the file, the size and the cause; no SIGBUS later). */
int stn_map_file(const char *dir, const char *stencil, const char *field, int level, size_t bytes,
                 void **out);

/* ------------------------------------------------------------------ usage.c: telling the user */

/* --help: the options, then the stencil's fields, params, series, points and records. */
void stn_usage(const stn_program_desc *d, FILE *out);
/* v with the fewest significant digits (1 to 17) that read back as v: 0.1, not 0.10000000000000001. */
const char *stn_fmt_shortest(char *buf, size_t n, double v);
/* The name among names[0..count) closest to typed[0..len) (edit distance at most 1 for names of up
 * to 4 letters, else 2; or the one name it begins, of 3 letters or more), or NULL: "did you mean". */
const char *stn_suggest(const char *typed, size_t len, const char *const *names, int count);

#endif /* STN_INTERNAL_H */
