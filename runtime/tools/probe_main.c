/*
 * probe_main.c -- stencilc-probe, the program behind `stencilc probe`: measure the flash device
 * holding a directory (stn_probe, runtime/src/io/probe.c) and write a complete machine file
 * (docs/machines.md) for this machine with the device's read, write, mixed and mixed_new curves
 * and the kernels' share of speed left under IO (compute_under_io).
 *
 *   stencilc-probe --dir DIR [--size BYTES] [--seconds S] [-o FILE] [--quiet]
 *
 * FILE defaults to the cache path a run looks in (stn_dev_cache_path: $STENCILC_CACHE_DIR, else
 * $XDG_CACHE_HOME/stencilc, else ~/.cache/stencilc, then devices/MAJOR-MINOR.json); its directories
 * are created, and the file is written to a temporary beside it, read back through the runtime's
 * own machine-file parser, and renamed into place, so it appears whole and valid or not at all.
 * Exit status: 0; 1 the directory, the device or the output failed (`stencilc probe: error: ...`
 * on stderr); 2 a command-line mistake.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_device.h"
#include "base/stn_internal.h"
#include "io/stn_gridio.h"
#include "io/stn_probe.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "stencilc probe: error: "

static const char usage_text[] =
    "usage: stencilc probe --dir DIR [--tier aio|pmem] [--size BYTES] [--seconds S] [-o FILE] [--quiet]\n"
    "\n"
    "Measure the read and write bandwidth of the flash device holding DIR for requests of 64K,\n"
    "256K, 1M and 4M at queue depths 1, 8 and 32 (O_DIRECT, libaio); then reads and writes at\n"
    "once, half the requests each, at depths 8 and 32 (mixed) and, writing into never-written\n"
    "space, at depth 32 (mixed_new); then how much of a stencil kernel's speed is left while the\n"
    "device is busy (compute_under_io, about 1 s).  Write a machine file for this machine with\n"
    "the figures (docs/machines.md).  The defaults take about 20 to 25 s.\n"
    "\n"
    "  --dir DIR     a directory on the device (test files are created there and removed;\n"
    "                it needs room for two)\n"
    "  --tier T      aio (the default) or pmem: the copies of --tier pmem to and from a file\n"
    "                mapped with libpmem (any file system; devices/MAJOR-MINOR.pmem.json)\n"
    "  --size BYTES  the test file's size, at least 16M (default 1G)\n"
    "  --seconds S   seconds per measured point, 36 points (default 0.3)\n"
    "  -o FILE       where the machine file goes (default: the cache, devices/MAJOR-MINOR.json)\n"
    "  --quiet       print only the path written\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs(PREFIX, stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see --help)\n", stderr);
    return 2;
}

static int fail(const char *msg) {
    fprintf(stderr, PREFIX "%s\n", msg);
    return 1;
}

/* "254:0 (vda)" or "259:1 (nvme0n1p1, Samsung SSD 980)": the block device holding dir, from sysfs. */
static void device_name(const char *dir, char *out, size_t n) {
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        snprintf(out, n, "an unknown device");
        return;
    }
    unsigned maj = major(sb.st_dev), min = minor(sb.st_dev);
    char link[64], model[128] = "", path[PATH_MAX + 32];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", maj, min);
    char *real = realpath(link, NULL);
    if (!real) {
        snprintf(out, n, "device %u:%u (no block device)", maj, min);
        return;
    }
    const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
    static const char *const tries[] = {"%s/device/model", "%s/../device/model"};
    for (size_t t = 0; t < 2 && !model[0]; t++) {
        snprintf(path, sizeof path, tries[t], real);
        FILE *fp = fopen(path, "re");
        if (!fp)
            continue;
        if (!fgets(model, sizeof model, fp))
            model[0] = '\0';
        fclose(fp);
        size_t len = strlen(model);
        while (len > 0 && (model[len - 1] == '\n' || model[len - 1] == ' '))
            model[--len] = '\0';
    }
    if (model[0])
        snprintf(out, n, "device %u:%u (%s, %s)", maj, min, base, model);
    else
        snprintf(out, n, "device %u:%u (%s)", maj, min, base);
    free(real);
}

/* How the device was probed: the directory (absolute), the device's name, the test file's size, the
 * seconds per point and the device's block. */
typedef struct probed {
    const char *dir, *devname;
    uint64_t file_bytes;
    double seconds;
    size_t block;
} probed;

/* The machine file's text: this machine as discovered, the device's curves as measured. */
static int machine_json(const stn_hw *hw, const stn_device *dev, const probed *how, char *out, size_t n) {
    char name[128], desc[256], date[64] = "", hb[32];
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%d", &tm);
    snprintf(name, sizeof name, "this machine (probed %.60s)", how->dir);
    snprintf(desc, sizeof desc,
             "stencilc probe on %s: %.80s under %.60s, a %s test file, %.2f s per point; cores, caches "
             "and DRAM as discovered",
             date, how->devname, how->dir, stn_fmt_bytes(hb, sizeof hb, how->file_bytes), how->seconds);
    return stn_devfile_json(hw, dev, name, desc, how->block, out, n);
}

/* "  1234.5" for the curve's point at exactly (request, depth), "       -" where it has none (mixed
 * and mixed_new are measured at fewer depths; an interpolated figure would look measured). */
static const char *table_cell(const stn_dev_curve *c, uint64_t request, int depth, char *buf, size_t n) {
    snprintf(buf, n, "%11s", "-");
    for (int i = 0; i < c->n; i++)
        if (c->p[i].request == request && c->p[i].depth == depth)
            snprintf(buf, n, "%11.1f", c->p[i].bps / (1 << 20));
    return buf;
}

static void print_table(const stn_device *dev) {
    printf("  request  depth   read MiB/s  write MiB/s  mixed MiB/s  mixed_new MiB/s\n");
    for (int i = 0; i < dev->read.n; i++) {
        const stn_dev_point *r = &dev->read.p[i];
        char req[32], w[32], m[32], mn[32];
        if (r->request >= ((uint64_t)1 << 20))
            snprintf(req, sizeof req, "%lluM", (unsigned long long)(r->request >> 20));
        else
            snprintf(req, sizeof req, "%lluK", (unsigned long long)(r->request >> 10));
        printf("  %7s  %5d  %11.1f  %s  %s      %s\n", req, r->depth, r->bps / (1 << 20),
               table_cell(&dev->write, r->request, r->depth, w, sizeof w),
               table_cell(&dev->mixed, r->request, r->depth, m, sizeof m),
               table_cell(&dev->mixed_new, r->request, r->depth, mn, sizeof mn));
    }
    printf("  compute under IO: %.3f of the kernels' rate alone (64K @ 32), %.3f (1M @ 32)\n",
           dev->compute_under_io, dev->compute_under_io_1m);
    printf("  IO under compute: %.3f of the mixed bandwidth alone (64K @ 32), %.3f (1M @ 32)\n",
           dev->io_under_compute, dev->io_under_compute_1m);
}

/* The command line. */
typedef struct probe_args {
    const char *dir, *output;
    uint64_t size;
    double seconds;
    int quiet;
    int pmem; /* --tier pmem */
} probe_args;

/* Parse and check the command line into *pa: -1 to go on, else the exit status (0 after --help, 2 for
 * a mistake, its message printed). */
static int parse_args(int argc, char **argv, probe_args *pa) {
    const char *dir = NULL, *output = NULL, *size_text = NULL, *seconds_text = NULL, *tier = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        static const char *const names[] = {"--dir", "--size", "--seconds", "-o", "--output", "--tier"};
        const char **slot[] = {&dir, &size_text, &seconds_text, &output, &output, &tier};
        int k = -1;
        size_t len = eq && strncmp(a, "--", 2) == 0 ? (size_t)(eq - a) : strlen(a);
        for (int j = 0; j < 6 && k < 0; j++)
            if (strlen(names[j]) == len && strncmp(a, names[j], len) == 0)
                k = j;
        if (k < 0)
            return usage_error(a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
        const char *value = len < strlen(a) ? a + len + 1 : NULL;
        if (!value) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", names[k]);
            value = argv[++i];
        }
        if (*slot[k])
            return usage_error("%s is given twice", names[k]);
        *slot[k] = value;
    }
    if (!dir)
        return usage_error("--dir DIR is required: a directory on the device to measure");
    if (!*dir)
        return usage_error("--dir: expected a directory, got an empty string");
    uint64_t size = STN_PROBE_DEFAULT_BYTES;
    if (size_text) {
        if (stn_parse_bytes(size_text, &size) != 0)
            return usage_error("--size %s: expected a byte count such as 64M, 1G or 1.5G (binary units)",
                               size_text);
        if (size < STN_PROBE_MIN_BYTES)
            return usage_error("--size %s: the test file needs at least 16M", size_text);
    }
    double seconds = STN_PROBE_DEFAULT_SECONDS;
    if (seconds_text) {
        char *end;
        seconds = strtod(seconds_text, &end);
        if (!*seconds_text || *end || !(seconds > 0) || seconds > STN_PROBE_MAX_SECONDS)
            return usage_error(
                "--seconds %s: expected a number of seconds per point, more than 0 and at most %g",
                seconds_text, STN_PROBE_MAX_SECONDS);
    }
    if (output && !*output)
        return usage_error("-o: expected a file, got an empty string");
    if (tier && strcmp(tier, "aio") != 0 && strcmp(tier, "pmem") != 0)
        return usage_error("--tier %s: expected one of aio, pmem", tier);
    *pa = (probe_args){dir, output, size, seconds, quiet, tier && strcmp(tier, "pmem") == 0};
    return -1;
}

int main(int argc, char **argv) {
    probe_args pa = {0};
    int status = parse_args(argc, argv, &pa);
    if (status >= 0)
        return status;
    const char *dir = pa.dir, *output = pa.output;
    uint64_t size = pa.size;
    double seconds = pa.seconds;
    int quiet = pa.quiet;
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        fprintf(stderr, PREFIX "--dir '%s': %s\n", dir, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, PREFIX "--dir '%s': not a directory\n", dir);
        return 1;
    }
    char path[PATH_MAX];
    if (!output) {
        int rc = stn_dev_cache_path(dir, pa.pmem, path, sizeof path);
        if (rc) {
            fprintf(stderr,
                    PREFIX
                    "cannot find the cache for '%s': %s (set STENCILC_CACHE_DIR or HOME, or give -o FILE)\n",
                    dir, strerror(-rc));
            return 1;
        }
        output = path;
    }

    double t0 = stn_now();
    stn_device dev;
    int rc = pa.pmem ? stn_probe_pmem(dir, size, seconds, &dev, !quiet)
                     : stn_probe(dir, size, seconds, &dev, !quiet);
    if (rc)
        return fail(stn_errmsg());
    double took = stn_now() - t0;

    stn_hw hw;
    if (stn_hw_discover(&hw) != 0)
        return fail(stn_errmsg());
    size_t block = 0;
    if (stn_dio_alignment(dir, &block, NULL, 0) != 0)
        return fail(stn_errmsg());
    char devname[256], where[PATH_MAX];
    device_name(dir, devname, sizeof devname);
    if (!realpath(dir, where)) /* the machine file names the directory absolutely */
        snprintf(where, sizeof where, "%s", dir);
    static char text[16384];
    if (stn_dev_identity(dir, dev.device_id, sizeof dev.device_id) != 0) /* (runs check it: setup.c) */
        dev.device_id[0] = '\0';
    dev.measured_at = (int64_t)time(NULL);
    probed how = {where, devname, size - size % STN_PROBE_MAX_REQUEST, seconds, block};
    if (machine_json(&hw, &dev, &how, text, sizeof text) != 0)
        return fail(stn_errmsg());
    if (stn_devfile_write(output, text, &dev) != 0)
        return fail(stn_errmsg());

    if (!quiet) {
        char hb[32];
        printf("%s under %s: a %s test file, %.2f s per point\n", devname, dir,
               stn_fmt_bytes(hb, sizeof hb, size - size % STN_PROBE_MAX_REQUEST), seconds);
        print_table(&dev);
    }
    printf("wrote %s (the probe took %.1f s)\n", output, took);
    return 0;
}
