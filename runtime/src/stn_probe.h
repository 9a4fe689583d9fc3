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
 * the first submission to the last completion; a write point also counts the fdatasync that makes
 * its data durable (a device's volatile cache is not its bandwidth).  Write buffers hold random
 * bytes stamped with a sequence number per 4 KiB, so compressing or deduplicating storage cannot
 * shortcut them.
 *
 * Time: about 2 x 12 x seconds_per_point plus one pass over the file (the defaults, 1 GiB and
 * 0.3 s, take about 10 s on a 2 GB/s device).  Memory: STN_PROBE_MAX_DEPTH x the largest request
 * (128 MiB) of buffers, through stn_alloc.
 *
 * The file is unlinked as soon as it is open, so it never outlives the probe (also when the probe
 * fails or is killed).  A file system that refuses O_DIRECT is refused (-EOPNOTSUPP): a buffered
 * probe would measure the page cache; so is tmpfs, which takes O_DIRECT since Linux 6.6 (memory).
 */
#ifndef STN_PROBE_H
#define STN_PROBE_H

#include "stn_device.h"

#include <stdint.h>

/* The points measured, for reads and for writes: every request size (64K, 256K, 1M, 4M) at every
 * queue depth (1, 8, 32). */
#define STN_PROBE_NREQUESTS 4
#define STN_PROBE_NDEPTHS 3
extern const uint64_t stn_probe_requests[STN_PROBE_NREQUESTS];
extern const int stn_probe_depths[STN_PROBE_NDEPTHS];
#define STN_PROBE_MAX_REQUEST ((uint64_t)4 << 20)
#define STN_PROBE_MAX_DEPTH 32
#define STN_PROBE_MIN_PER_SLOT 3 /* requests per slot at least, however short seconds_per_point */

#define STN_PROBE_DEFAULT_BYTES ((uint64_t)1 << 30)
#define STN_PROBE_MIN_BYTES ((uint64_t)16 << 20) /* 4 of the largest requests */
#define STN_PROBE_DEFAULT_SECONDS 0.3
#define STN_PROBE_MAX_SECONDS 60.0

/* Measure the device holding `dir` (see the top) into out->read and out->write (12 points each,
 * sorted as stn_dev_parse_curve sorts them) and out->source.  file_bytes: the test file's size
 * (0: STN_PROBE_DEFAULT_BYTES; at least STN_PROBE_MIN_BYTES); seconds_per_point: 0 gives
 * STN_PROBE_DEFAULT_SECONDS, else in (0, STN_PROBE_MAX_SECONDS].  verbose: one line per point on
 * stderr as it is measured.  0, or a negative errno value with the message in stn_errmsg():
 * -EINVAL bad arguments, -ENOENT / -ENOTDIR / -EACCES for dir, -EOPNOTSUPP no O_DIRECT or a file
 * system in memory, -ENOSPC, -EIO, ... */
int stn_probe(const char *dir, uint64_t file_bytes, double seconds_per_point, stn_device *out, int verbose);

#endif /* STN_PROBE_H */
