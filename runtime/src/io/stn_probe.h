/*
 * stn_probe.h -- measure the flash device behind a directory: its read and write bandwidth as a
 * function of the request size and the queue depth (probe.c), the curves of stn_device.h.  Private
 * to the runtime; `stencilc probe --dir DIR` (runtime/tools/probe_main.c) is its user.
 *
 * What is measured.  A test file of file_bytes (rounded down to a multiple of the largest request)
 * is created in dir with the grid-file layer and written through once (a fallocated extent that was
 * never written reads as zeros without touching the device).  Then, through the runtime's own libaio
 * queue with O_DIRECT, for every request size in STN_PROBE_REQUESTS and queue depth in
 * STN_PROBE_DEPTHS, first all reads, then all writes: exactly `depth` requests are kept in flight,
 * each at a random offset (a multiple of its size) in the file, for about seconds_per_point and at
 * least STN_PROBE_MIN_PER_SLOT requests per slot.  The figure is the bytes moved over the time from
 * the first submission to the last completion; a point that writes also counts the fdatasync that
 * makes its data durable (a device's volatile cache is not its bandwidth).  Write buffers hold
 * random bytes stamped with a sequence number per 4 KiB, so compressing or deduplicating storage
 * cannot shortcut them.
 *
 * Then what an out-of-core sweep does, which the read and write curves alone overrate (a device
 * shares itself between the two; a file system converts unwritten extents; a hypervisor spends the
 * guest's CPU time on its IO):
 *   mixed      every size at depths 8 and 32 (those of STN_PROBE_DEPTHS from index
 *              STN_PROBE_MIXED_FIRST_DEPTH on): half the slots (the even ones) read, the other half
 * overwrite, both at random offsets of the written test file; the figure is the bytes read plus written per
 * second, as above; mixed_new  every size at depth 32 only: the same, but the writes go into a second test
 * file, fresh for every point (created, fallocated and unlinked as the first, never written), each at a
 * position never written before (a permutation of the positions; the point ends early if they run out, as
 * they do only with tiny test files); compute_under_io  the rate of an in-cache 7-point Jacobi step (2 grids
 * of 64^3 doubles, z split over the OpenMP threads) while mixed IO of 64K at depth 32 runs with the main
 *              thread polling the queue between steps, as the out-of-core engine does, over its
 *              rate alone: about 0.5 s each, in 4 alternating pieces so that anything else slowing
 *              the machine meanwhile weighs on both; clamped to [0.05, 1].
 *
 * Last, remove_seconds_per_gib: the written test file's removal (its last descriptor closed: the file
 * system frees its blocks, on a `discard` mount trimming them) over its size in GiB.
 *
 * Time: about (2 x 12 + 8 + 4) x seconds_per_point, plus one pass over the file, plus about 1 s
 * of compute (the defaults, 1 GiB and 0.3 s, take about 22 s on a 1-2 GB/s device).  Memory:
 * STN_PROBE_MAX_DEPTH x the largest request (128 MiB) of buffers and 4 MiB of grids, through
 * stn_alloc; disk: twice file_bytes while a mixed_new point runs.
 *
 * Each file is unlinked as soon as it is open, so it never outlives the probe (also when the probe
 * fails or is killed).  A file system that refuses O_DIRECT is refused (-EOPNOTSUPP): a buffered
 * probe would measure the page cache; so is tmpfs, which takes O_DIRECT since Linux 6.6 (memory).
 */
#ifndef STN_PROBE_H
#define STN_PROBE_H

#include "base/stn_device.h"

#include <stdint.h>

/* The points measured, for reads and for writes: every request size (64K, 256K, 1M, 4M) at every
 * queue depth (1, 8, 32). */
#define STN_PROBE_NREQUESTS 4
#define STN_PROBE_NDEPTHS 3
extern const uint64_t stn_probe_requests[STN_PROBE_NREQUESTS];
extern const int stn_probe_depths[STN_PROBE_NDEPTHS];
/* mixed: the depths of stn_probe_depths from this index on (8, 32); mixed_new: the last (32). */
#define STN_PROBE_MIXED_FIRST_DEPTH 1
#define STN_PROBE_MAX_REQUEST ((uint64_t)4 << 20)
#define STN_PROBE_MAX_DEPTH 32
#define STN_PROBE_MIN_PER_SLOT 3 /* requests per slot at least, however short seconds_per_point */

#define STN_PROBE_DEFAULT_BYTES ((uint64_t)1 << 30)
#define STN_PROBE_MIN_BYTES ((uint64_t)16 << 20) /* 4 of the largest requests */
#define STN_PROBE_DEFAULT_SECONDS 0.3
#define STN_PROBE_MAX_SECONDS 60.0

/* Measure the device holding `dir` (see the top) into out->read and out->write (12 points each),
 * out->mixed (8 points: depths 8 and 32), out->mixed_new (4 points: depth 32), all sorted as
 * stn_dev_parse_curve sorts them, out->compute_under_io and out->source.  file_bytes: the test file's size
 * (0: STN_PROBE_DEFAULT_BYTES; at least STN_PROBE_MIN_BYTES); seconds_per_point: 0 gives
 * STN_PROBE_DEFAULT_SECONDS, else in (0, STN_PROBE_MAX_SECONDS].  verbose: one line per point on
 * stderr as it is measured.  0, or a negative errno value with the message in stn_errmsg():
 * -EINVAL bad arguments, -ENOENT / -ENOTDIR / -EACCES for dir, -EOPNOTSUPP no O_DIRECT or a file
 * system in memory, -ENOSPC, -EIO, ... */
int stn_probe(const char *dir, uint64_t file_bytes, double seconds_per_point, stn_device *out, int verbose);
/* The same figures for --tier pmem (probe_pmem.c): copies to and from a test file mapped with libpmem
 * in dir (any file system: tmpfs and ext4 map without DAX), each request size's figure at every depth. */
int stn_probe_pmem(const char *dir, uint64_t file_bytes, double seconds_per_point, stn_device *out,
                   int verbose);

/* A bounded calibration, what a run measures on the first use of a device without cached curves (issue
 * 30): the same as stn_probe on a test file of STN_CALIBRATE_BYTES, STN_CALIBRATE_SECONDS per point,
 * but only requests of 64K and 1M at depths 8 and 32 (read and write 4 points each, mixed 4, mixed_new
 * 2), at least one request per slot instead of STN_PROBE_MIN_PER_SLOT, and compute_under_io measured
 * for 0.2 s in 2 pieces instead of 0.5 s in 4: about 1-2 s on a device of 0.4-2 GB/s (the IO is
 * bounded by the file: a point moves at most 32 x 1M and about STN_CALIBRATE_SECONDS).  The curves
 * interpolate between the points as a probe's do; out->source says "calibrated".  Errors as stn_probe. */
#define STN_CALIBRATE_BYTES ((uint64_t)32 << 20)
#define STN_CALIBRATE_SECONDS 0.02
int stn_probe_calibrate(const char *dir, stn_device *out);
/* How a machine file written by a run's calibration begins its description (a run tells it from a probe's).
 */
#define STN_CALIBRATION_MARK "stencilc calibration:"

/* devfile.c: the machine file (docs/machines.md) of this machine (hw: cores, caches, DRAM) with dev's
 * curves, named `name` and described by `desc`, device_block `block`, into out (n bytes): 0, or
 * -ENAMETOOLONG when it does not fit. */
struct stn_hw;
int stn_devfile_json(const struct stn_hw *hw, const stn_device *dev, const char *name, const char *desc,
                     size_t block, char *out, size_t n);
/* mkdir -p of the directory part of path: 0, or a negative errno with the message. */
int stn_mkdir_parents(const char *path);
/* Write text to path atomically (its directories made), after checking that the runtime reads it back
 * with dev's curves: 0, or a negative errno with the message. */
int stn_devfile_write(const char *path, const char *text, const stn_device *dev);

/* The arguments every probe checks first: a test file of at least STN_PROBE_MIN_BYTES, a time per point
 * in (0, STN_PROBE_MAX_SECONDS], `dir` an existing directory.  0, or the error (stn_error). */
int stn_probe_check_args(const char *dir, uint64_t file_bytes, double seconds_per_point);

/* Mixed IO kept running for a measurement of the plan's kernels under load (plan/tune_rate.c): a test file of
 * file_bytes in dir (created, unlinked at once, written through once), requests of `request` bytes (a
 * multiple of 64K, at most STN_PROBE_MAX_REQUEST) at `depth` (at most STN_PROBE_MAX_DEPTH), the even slots
 * reading and the odd ones overwriting it at random offsets, as a probe's mixed point.  begin fills the
 * queue; service (between the kernels' steps, as the engine polls) collects what completed and refills the
 * free slots, never waiting; end stops issuing and drains (the writes made durable), giving the bytes moved
 * and the seconds since begin; close removes the file and frees the buffers (depth x request, stn_alloc).
 * Errors as stn_probe (-EOPNOTSUPP where O_DIRECT is refused or dir is in memory). */
typedef struct stn_io_load stn_io_load;
int stn_io_load_open(const char *dir, uint64_t file_bytes, uint64_t request, int depth, stn_io_load **out);
int stn_io_load_begin(stn_io_load *l);
int stn_io_load_service(stn_io_load *l);
int stn_io_load_end(stn_io_load *l, uint64_t *bytes, double *seconds);
void stn_io_load_close(stn_io_load *l);

/* The probes' pseudo-random offsets: xorshift64 on *state (never 0), which it advances. */
uint64_t stn_probe_xorshift(uint64_t *state);

#endif /* STN_PROBE_H */
