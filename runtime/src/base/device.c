/* device.c -- the flash device's bandwidth curves for the time model (stn_device.h). */
#include "base/stn_device.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A number with an optional binary unit (K, M, G, T): its value, or -1 if it is not one.  *end
 * receives where it stopped. */
static double number_with_unit(const char *s, const char **end) {
    char *e;
    if (!isdigit((unsigned char)*s) && *s != '.')
        return -1;
    double v = strtod(s, &e);
    const char *units = "KMGT", *u = *e ? strchr(units, toupper((unsigned char)*e)) : NULL;
    if (u && *e) {
        v *= pow(1024.0, (double)(u - units + 1));
        e++;
        if (*e == 'i' || *e == 'I') /* "KiB"-style spellings are the same unit */
            e++;
        if (*e == 'B' || *e == 'b')
            e++;
    }
    *end = e;
    return v;
}

static int by_depth_request(const void *a, const void *b) {
    const stn_dev_point *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->request < y->request ? -1 : x->request > y->request;
}

int stn_dev_parse_curve(const char *text, stn_dev_curve *c, char *err, size_t n) {
    c->n = 0;
    const char *s = text;
    for (int k = 1;; k++) {
        while (*s == ' ' || *s == ',' || *s == '\t' || *s == '\n')
            s++;
        if (!*s)
            break;
        const char *start = s, *e;
        int len = 0;
        while (start[len] && start[len] != ' ' && start[len] != ',' && start[len] != '\t')
            len++;
        double req = number_with_unit(s, &e), depth = -1, bps = -1;
        if (req > 0 && *e == '@') {
            depth = strtod(e + 1, (char **)&e);
            if (*e == ':')
                bps = number_with_unit(e + 1, &e);
        }
        if (req < 1 || depth < 1 || depth != floor(depth) || depth > 65536 || bps <= 0 || !isfinite(bps) ||
            (*e && *e != ' ' && *e != ',' && *e != '\t' && *e != '\n')) {
            snprintf(err, n,
                     "point %d '%.*s': expected REQUEST@DEPTH:BANDWIDTH, e.g. 64K@8:610M (bytes per request, "
                     "requests in flight, bytes per second; binary units)",
                     k, len, start);
            return -EINVAL;
        }
        if (c->n == STN_CURVE_MAX) {
            snprintf(err, n, "more than %d points", STN_CURVE_MAX);
            return -EINVAL;
        }
        c->p[c->n++] = (stn_dev_point){(uint64_t)req, (int)depth, bps};
        s = e;
    }
    if (c->n == 0) {
        snprintf(err, n, "no points: expected REQUEST@DEPTH:BANDWIDTH, e.g. 64K@8:610M");
        return -EINVAL;
    }
    qsort(c->p, (size_t)c->n, sizeof c->p[0], by_depth_request);
    for (int i = 1; i < c->n; i++)
        if (c->p[i].depth == c->p[i - 1].depth && c->p[i].request == c->p[i - 1].request) {
            snprintf(err, n, "two points for requests of %llu bytes at depth %d",
                     (unsigned long long)c->p[i].request, c->p[i].depth);
            return -EINVAL;
        }
    return 0;
}

static const char *unit(double v, char *buf, size_t n) {
    static const char *u[] = {"", "K", "M", "G", "T"};
    int k = 0;
    while (k < 4 && v >= 999.5) /* what %.3g rounds to 1000 in the next unit: not "1e+03M" */
        v /= 1024.0, k++;
    if (v == floor(v))
        snprintf(buf, n, "%.0f%s", v, u[k]);
    else /* (under 1 of a unit: four digits, so that the text read back gives the same text) */
        snprintf(buf, n, v < 1 ? "%.4g%s" : "%.3g%s", v, u[k]);
    return buf;
}

void stn_dev_format_curve(const stn_dev_curve *c, char *buf, size_t n) {
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n && at < n; i++) {
        char a[32], b[32];
        int w =
            snprintf(buf + at, n - at, "%s%s@%d:%s", i ? " " : "", unit((double)c->p[i].request, a, sizeof a),
                     c->p[i].depth, unit(c->p[i].bps, b, sizeof b));
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

double stn_dev_bandwidth(const stn_dev_curve *c, uint64_t request, int depth) {
    if (c->n == 0 || request == 0)
        return 0;
    /* the depth to use: the largest measured <= depth, else the least measured */
    int d = c->p[0].depth;
    for (int i = 0; i < c->n; i++)
        if (c->p[i].depth <= depth)
            d = c->p[i].depth;
    int lo = -1, hi = -1; /* the points of depth d around `request` */
    for (int i = 0; i < c->n; i++) {
        if (c->p[i].depth != d)
            continue;
        if (c->p[i].request <= request)
            lo = i;
        if (c->p[i].request >= request && hi < 0)
            hi = i;
    }
    if (lo < 0) /* below the smallest request measured: as many requests a second (the latency
                 * bounds small requests, not the bandwidth) */
        return c->p[hi].bps * (double)request / (double)c->p[hi].request;
    if (hi < 0 || hi == lo)
        return c->p[lo].bps;
    /* seconds per byte, linear in log(request) */
    double x = (log((double)request) - log((double)c->p[lo].request)) /
               (log((double)c->p[hi].request) - log((double)c->p[lo].request));
    double spb = (1 - x) / c->p[lo].bps + x / c->p[hi].bps;
    return 1.0 / spb;
}

/* A share measured at 64K (small) and at 1M (big, 0: not measured): linear in log2(request)
 * between, the nearer figure outside; 1 where nothing was measured. */
static double share_at(double small, double big, uint64_t request) {
    if (!(small > 0))
        return 1;
    if (!(big > 0) || request <= ((uint64_t)64 << 10))
        return small;
    if (request >= ((uint64_t)1 << 20))
        return big;
    double x = (log2((double)request) - 16) / 4; /* 64K = 2^16 .. 1M = 2^20 */
    return (1 - x) * small + x * big;
}

double stn_dev_compute_share(const stn_device *d, uint64_t request) {
    return share_at(d->compute_under_io, d->compute_under_io_1m, request);
}

double stn_dev_io_share(const stn_device *d, uint64_t request) {
    return share_at(d->io_under_compute, d->io_under_compute_1m, request);
}

void stn_dev_default(stn_device *dev) {
    char err[256];
    memset(dev, 0, sizeof *dev); /* no mixed curves, no slowdown under IO: not measured */
    /* a SATA-class SSD: about 500 MB/s either way at depth, much less for small requests alone */
    (void)stn_dev_parse_curve("4K@1:40M 64K@1:200M 1M@1:400M 4K@8:150M 64K@8:450M 1M@8:500M", &dev->read, err,
                              sizeof err);
    (void)stn_dev_parse_curve("4K@1:60M 64K@1:250M 1M@1:400M 4K@8:150M 64K@8:400M 1M@8:450M", &dev->write,
                              err, sizeof err);
    snprintf(dev->source, sizeof dev->source, "default (nothing measured: run 'stencilc probe --dir DIR')");
}

const char *stn_curves_origin_name(int origin) {
    static const char *const names[] = {"default", "machine", "probe", "cached", "calibrated"};
    return origin >= 0 && origin < (int)(sizeof names / sizeof names[0]) ? names[origin] : "?";
}

int stn_cache_base(char *base, size_t n) {
    const char *env = getenv("STENCILC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (env && *env)
        w = snprintf(base, n, "%s", env);
    else if (xdg && *xdg)
        w = snprintf(base, n, "%s/stencilc", xdg);
    else if (home && *home)
        w = snprintf(base, n, "%s/.cache/stencilc", home);
    else
        return -ENOENT;
    return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

int stn_dev_cache_path(const char *dir, int pmem, char *path, size_t n) {
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return -errno;
    char base[3072];
    int rc = stn_cache_base(base, sizeof base);
    if (rc)
        return rc;
    int w = snprintf(path, n, "%s/devices/%u-%u%s.json", base, major(sb.st_dev), minor(sb.st_dev),
                     pmem ? ".pmem" : "");
    return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

/* The first line of /sys/dev/block/MAJ:MIN/NAME (trailing blanks cut) into out; 0 if it is there. */
static int sys_line(const char *disk, const char *name, char *out, size_t n) {
    char path[320];
    snprintf(path, sizeof path, "%s/%s", disk, name);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *got = fgets(out, (int)n, f);
    fclose(f);
    if (!got)
        return -1;
    size_t k = strlen(out);
    while (k > 0 && isspace((unsigned char)out[k - 1]))
        out[--k] = '\0';
    return k > 0 ? 0 : -1;
}

int stn_dev_identity(const char *dir, char *out, size_t n) {
    struct stat sb;
    struct statfs fs;
    if (stat(dir, &sb) != 0 || statfs(dir, &fs) != 0)
        return -errno;
    char disk[128], part[160], size[64] = "?", id[128] = "", model[128] = "";
    snprintf(disk, sizeof disk, "/sys/dev/block/%u:%u", major(sb.st_dev), minor(sb.st_dev));
    snprintf(part, sizeof part, "%s/partition", disk);
    sys_line(disk, "size", size, sizeof size); /* (the partition's own size) */
    if (access(part, F_OK) == 0)
        strcat(disk, "/.."); /* (a partition: the whole disk names the hardware) */
    static const char *const ids[] = {"wwid", "serial", "device/wwid", "device/serial"};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0] && !id[0]; k++)
        sys_line(disk, ids[k], id, sizeof id);
    sys_line(disk, "device/model", model, sizeof model);
    int w =
        snprintf(out, n, "%u:%u %s sectors%s%s%s%s, fs %lx", major(sb.st_dev), minor(sb.st_dev), size,
                 id[0] ? ", serial " : "", id, model[0] ? ", model " : "", model, (unsigned long)fs.f_type);
    return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}
