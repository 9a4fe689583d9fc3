/*
 * stn_device.h -- what the time model knows of a flash device: its read and write bandwidth as a
 * function of the request size and the queue depth (device.c).  Private to the runtime.
 *
 * A curve is a list of measured points "REQUEST@DEPTH:BANDWIDTH", the text a machine file and a
 * probe file hold (docs/machines.md), e.g. "64K@8:610M 1M@8:1.05G".  Sizes take binary units
 * (K, M, G, T); a bandwidth is bytes per second with the same units ("1.05G" is 1.05 GiB/s).
 * Between measured request sizes the time per byte is interpolated linearly in log(request
 * size); above the largest it is the largest's; below the smallest, requests take as long as
 * the smallest's (latency, not bandwidth, bounds them: the bandwidth falls with the size).  Depth: the
 * nearest measured depth at or below the one asked (the least one measured if none is below).
 */
#ifndef STN_DEVICE_H
#define STN_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define STN_CURVE_MAX 64

typedef struct stn_dev_point {
    uint64_t request; /* bytes per request */
    int depth;        /* requests in flight */
    double bps;       /* bytes per second */
} stn_dev_point;

typedef struct stn_dev_curve {
    int n;
    stn_dev_point p[STN_CURVE_MAX]; /* sorted by depth, then request */
} stn_dev_curve;

/* A device as the time model sees it.  read and write are always there (a device file needs
 * both); the others are optional (n == 0, compute_under_io == 0: not measured).
 *   mixed      reads and writes at once, half the requests each, over data already written: the
 *              bytes of both per second (an out-of-core sweep reads and writes about as much);
 *   mixed_new  the same with the writes going into space reserved but never written (a run's
 *              first two sweeps write into new scratch files, which costs the file system more);
 *   compute_under_io  the share of the kernels' rate left while the device is busy, 0 to 1 (on
 *              a virtual machine the host's IO work takes CPU time from the guest; 1: none);
 *   io_under_compute  the other way round: the share of the mixed bandwidth left while the
 *              kernels run on every core (IO completes only as fast as a CPU takes it; 1: all).
 * Both shares are measured under mixed requests of 64K; the _1m ones under requests of 1M (0: not
 * measured, the 64K figure holds for every size).  On a virtual machine each request costs the
 * guest CPU time, so the same bytes in larger requests take less of the kernels' speed
 * (stn_dev_compute_share).
 *   remove_seconds_per_gib  seconds to remove a file, per GiB written to it: the file system frees
 *              its blocks when the last descriptor closes (on a `discard` mount the device trims them
 *              then, 0.24 s a GiB on this VM's ext4); a run pays it for its scratch files at the end
 *              (0: not measured). */
typedef struct stn_device {
    stn_dev_curve read, write, mixed, mixed_new;
    double compute_under_io, compute_under_io_1m;
    double io_under_compute, io_under_compute_1m;
    double remove_seconds_per_gib;
    char source[512];         /* where the curves came from: a probe file, a machine file, the default */
    int origin;               /* which of them (stn_curves_origin); what the report's device_curves names */
    double calibrate_seconds; /* STN_CURVES_CALIBRATED: the calibration's seconds */
    char device_id[256];      /* the device measured (stn_dev_identity; "" in files older than the key) */
    int64_t measured_at;      /* when, seconds since the epoch (0: not said) */
} stn_device;

/* Which curves a run's time model uses (program/setup.c finds them): the built-in default (nothing
 * measured and no calibration possible), a --machine file's, the file `stencilc probe` wrote for the
 * device, the file an earlier run's calibration wrote for it (cached), or a calibration made now. */
enum { STN_CURVES_DEFAULT, STN_CURVES_MACHINE, STN_CURVES_PROBE, STN_CURVES_CACHED, STN_CURVES_CALIBRATED };
/* "default", "machine", "probe", "cached", "calibrated" ("?" for another number). */
const char *stn_curves_origin_name(int origin);

/* Parse "REQUEST@DEPTH:BANDWIDTH ..." (whitespace or commas between points) into c.  0, or
 * -EINVAL with a message (in err, n bytes) naming the point and what is wrong. */
int stn_dev_parse_curve(const char *text, stn_dev_curve *c, char *err, size_t n);
/* The curve as text, the form stn_dev_parse_curve reads (sizes with binary units). */
void stn_dev_format_curve(const stn_dev_curve *c, char *buf, size_t n);
/* Bytes per second for requests of `request` bytes at `depth` in flight (see the top). */
double stn_dev_bandwidth(const stn_dev_curve *c, uint64_t request, int depth);
/* The share of the kernels' rate left while the device serves requests of `request` bytes
 * (compute_under_io at 64K and below, compute_under_io_1m at 1M and above, linear in log2 of the
 * size between; 1 where nothing was measured), and likewise the device's share while the kernels
 * run (io_under_compute, io_under_compute_1m).  In (0, 1]. */
double stn_dev_compute_share(const stn_device *d, uint64_t request);
double stn_dev_io_share(const stn_device *d, uint64_t request);
/* The built-in curves used when nothing was measured: a SATA-class SSD, deliberately modest
 * (read and write only; the rest of *dev cleared). */
void stn_dev_default(stn_device *dev);

/* The directory of stencilc's cache: $STENCILC_CACHE_DIR, else $XDG_CACHE_HOME/stencilc, else
 * ~/.cache/stencilc.  0, or -ENOENT (none of them), -ENAMETOOLONG. */
int stn_cache_base(char *base, size_t n);
/* Where `stencilc probe --dir DIR` keeps the machine file it measured for the device holding
 * dir, and where a run looks for it: $STENCILC_CACHE_DIR, else $XDG_CACHE_HOME/stencilc, else
 * ~/.cache/stencilc, then devices/MAJOR-MINOR.json (dir's st_dev), or devices/MAJOR-MINOR.pmem.json
 * for the pmem tier's copies (pmem nonzero: `stencilc probe --tier pmem`, a run with --tier pmem).
 * 0, or -errno (dir cannot be examined, no HOME). */
int stn_dev_cache_path(const char *dir, int pmem, char *path, size_t n);

/* The identity of the device holding dir, as a calibration records it: "MAJOR:MINOR", the disk's size in
 * 512-byte sectors, its wwid or serial and model where sysfs says (the whole disk's for a partition), and
 * the file system's type: "254:0 536870912 sectors, serial 1996..., fs ef53".  Another device mounted at
 * the same numbers, or the disk reformatted, gives another identity.  0, or -errno (dir cannot be
 * examined). */
int stn_dev_identity(const char *dir, char *out, size_t n);
/* Days after which a run's cached calibration is measured again (a `stencilc probe` file is kept). */
#define STN_CALIBRATION_MAX_DAYS 30

#endif /* STN_DEVICE_H */
