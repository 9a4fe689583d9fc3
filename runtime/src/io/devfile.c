/* devfile.c -- a machine file with a device's curves (docs/machines.md): its text and its atomic write,
 * for `stencilc probe` (runtime/tools/probe_main.c) and a run's own calibration (stn_probe.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"
#include "io/stn_probe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int stn_mkdir_parents(const char *path) {
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return stn_error(-ENAMETOOLONG, "'%s': the name is too long", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = '\0';
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            return stn_error(stn_neg_errno(e), "cannot create the directory '%s': %s", buf, strerror(e));
        }
        *p = c;
        if (!c)
            break;
    }
    return 0;
}

/* A JSON string of s into out: quotes and backslashes escaped (the only escapes a machine file
 * takes), control characters replaced by '?'. */
static void json_string(const char *s, char *out, size_t n) {
    size_t k = 0;
    if (n < 3)
        return;
    out[k++] = '"';
    for (; *s && k + 3 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            out[k++] = '\\', out[k++] = (char)ch;
        else
            out[k++] = ch < 0x20 ? '?' : (char)ch;
    }
    out[k++] = '"';
    out[k] = '\0';
}

int stn_devfile_json(const struct stn_hw *hw, const stn_device *dev, const char *name, const char *desc,
                     size_t block, char *out, size_t n) {
    char jname[300], jdesc[600];
    static __thread char rd[STN_CURVE_MAX * 48], wr[STN_CURVE_MAX * 48], mx[STN_CURVE_MAX * 48],
        mn[STN_CURVE_MAX * 48];
    json_string(name, jname, sizeof jname);
    json_string(desc, jdesc, sizeof jdesc);
    stn_dev_format_curve(&dev->read, rd, sizeof rd);
    stn_dev_format_curve(&dev->write, wr, sizeof wr);
    stn_dev_format_curve(&dev->mixed, mx, sizeof mx);
    stn_dev_format_curve(&dev->mixed_new, mn, sizeof mn);
    int w = snprintf(out, n,
                     "{\n"
                     "  \"name\": %s,\n"
                     "  \"description\": %s,\n"
                     "  \"cores\": %llu,\n"
                     "  \"sockets\": %llu,\n"
                     "  \"numa_nodes\": %llu,\n"
                     "  \"l2\": %llu,\n",
                     jname, jdesc, (unsigned long long)hw->cores.value, (unsigned long long)hw->sockets.value,
                     (unsigned long long)hw->numa_nodes.value, (unsigned long long)hw->l2.value);
    if (hw->l3.value && w > 0 && (size_t)w < n)
        w += snprintf(out + w, n - (size_t)w, "  \"l3\": %llu,\n", (unsigned long long)hw->l3.value);
    if (w > 0 && (size_t)w < n)
        w += snprintf(out + w, n - (size_t)w,
                      "  \"dram\": %llu,\n"
                      "  \"device_block\": %zu,\n"
                      "  \"read\": \"%s\",\n"
                      "  \"write\": \"%s\",\n"
                      "  \"mixed\": \"%s\",\n"
                      "  \"mixed_new\": \"%s\",\n"
                      "  \"compute_under_io\": %.3f,\n"
                      "  \"io_under_compute\": %.3f",
                      (unsigned long long)hw->dram.value, block, rd, wr, mx, mn, dev->compute_under_io,
                      dev->io_under_compute);
    if (dev->compute_under_io_1m > 0 && w > 0 && (size_t)w < n) /* (measured at 1M: stn_device.h) */
        w += snprintf(out + w, n - (size_t)w, ",\n  \"compute_under_io_1m\": %.3f", dev->compute_under_io_1m);
    if (dev->io_under_compute_1m > 0 && w > 0 && (size_t)w < n)
        w += snprintf(out + w, n - (size_t)w, ",\n  \"io_under_compute_1m\": %.3f", dev->io_under_compute_1m);
    if (dev->remove_seconds_per_gib > 0 && w > 0 && (size_t)w < n)
        w += snprintf(out + w, n - (size_t)w, ",\n  \"remove_seconds_per_gib\": %.6g",
                      dev->remove_seconds_per_gib);
    char jdev[600];
    json_string(dev->device_id, jdev, sizeof jdev);
    if (dev->device_id[0] && w > 0 && (size_t)w < n) /* (what was measured, and when: program/setup.c) */
        w += snprintf(out + w, n - (size_t)w, ",\n  \"device\": %s", jdev);
    if (dev->measured_at > 0 && w > 0 && (size_t)w < n)
        w += snprintf(out + w, n - (size_t)w, ",\n  \"measured_at\": %lld", (long long)dev->measured_at);
    if (w > 0 && (size_t)w < n)
        w += snprintf(out + w, n - (size_t)w, "\n}\n");
    if (w < 0 || (size_t)w >= n)
        return stn_error(-ENAMETOOLONG, "the machine file's text does not fit in %zu bytes", n);
    return 0;
}

int stn_devfile_write(const char *path, const char *text, const stn_device *dev) {
    int rc = stn_mkdir_parents(path);
    if (rc)
        return stn_error(rc, "cannot write '%s': %s", path, stn_errmsg());
    stn_afile af;
    rc = stn_afile_open(&af, path, 0);
    if (!rc)
        rc = stn_afile_write(&af, text, strlen(text));
    if (!rc)
        rc = stn_afile_sync(&af);
    if (!rc) {
        stn_hw back;
        rc = stn_hw_load_machine(af.tmp, &back);
        if (rc)
            rc = stn_error(rc, "the machine file does not read back (a bug): %s", stn_errmsg());
        else if (back.dev_keys != 3 || back.dev.read.n != dev->read.n || back.dev.write.n != dev->write.n ||
                 back.dev.mixed.n != dev->mixed.n || back.dev.mixed_new.n != dev->mixed_new.n ||
                 !(back.dev.compute_under_io > 0) || !(back.dev.io_under_compute > 0) ||
                 (back.dev.compute_under_io_1m > 0) != (dev->compute_under_io_1m > 0) ||
                 (back.dev.io_under_compute_1m > 0) != (dev->io_under_compute_1m > 0) ||
                 (back.dev.remove_seconds_per_gib > 0) != (dev->remove_seconds_per_gib > 0))
            rc = stn_error(-EIO, "the machine file does not read back (a bug): its curves differ");
    }
    if (rc) {
        stn_afile_abort(&af);
        return rc;
    }
    return stn_afile_commit(&af);
}
