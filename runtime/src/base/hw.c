/*
 * hw.c -- the machine a plan is made for: discovered (hwloc, /proc/meminfo, the memory cgroup)
 * or described (--machine FILE.json, for offline tuning).  The memory figures of the system
 * (/proc/meminfo, the memory cgroup v1 and v2) are read here too.  Every figure keeps its source, and
 * the report lists them.
 *
 * The DRAM figure is the smallest of hwloc's NUMA memory, MemAvailable and the cgroup's
 * headroom: on a VM hwloc can see less than /proc/meminfo (or more: ballooning), and a cgroup
 * can allow less than either.  The budget is that figure less a reserve for the page cache, the
 * program and the rest of the system (stn_mem_reserve; a machine file may give its own).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fig(stn_hw_fig *f, uint64_t v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fig(stn_hw_fig *f, uint64_t v, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    f->value = v;
    vsnprintf(f->source, sizeof f->source, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ memory: /proc/meminfo, the cgroup */

/* A "key: value kB" line of /proc/meminfo, in bytes (0 if absent). */
static uint64_t meminfo_bytes(const char *key) {
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return 0;
    char line[256];
    size_t klen = strlen(key);
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':' && sscanf(line + klen + 1, "%llu", &kib) == 1)
            break;
    fclose(f);
    return (uint64_t)kib * 1024u;
}

/* One number from a cgroup file; 0 for "max", a missing file or an absurd value. */
static uint64_t cgroup_number(const char *path) {
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    unsigned long long v = 0;
    if (fscanf(f, "%llu", &v) != 1)
        v = 0;
    fclose(f);
    return v >= (1ULL << 60) ? 0 : (uint64_t)v; /* cgroup v1 writes "unlimited" as ~2^63 */
}

/* The path of this process' cgroup in hierarchy `which`: "0::" (v2) or ":memory:" (v1). */
static int cgroup_path(const char *which, char *out, size_t n) {
    out[0] = '\0';
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = strstr(line, which);
        if (p && (which[0] != '0' || p == line)) {
            line[strcspn(line, "\n")] = '\0';
            const char *path = p + strlen(which);
            snprintf(out, n, "%s", strcmp(path, "/") == 0 ? "" : path);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* The least headroom (limit - usage) over a cgroup and its ancestors: a cgroup can use no more
 * than any ancestor allows.  0 when no level has a limit. */
static uint64_t headroom_walk(const char *mount, const char *path, const char *max_file,
                              const char *cur_file) {
    char dir[600], file[700];
    uint64_t best = 0;
    snprintf(dir, sizeof dir, "%s", path);
    for (;;) {
        snprintf(file, sizeof file, "%s%s/%s", mount, dir, max_file);
        uint64_t limit = cgroup_number(file);
        if (limit) {
            snprintf(file, sizeof file, "%s%s/%s", mount, dir, cur_file);
            uint64_t used = cgroup_number(file), room = limit > used ? limit - used : 1;
            if (!best || room < best)
                best = room;
        }
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = '\0'; /* the parent; "" is the root */
    }
    return best;
}

/* The least (limit - usage) over this process' memory cgroup and its ancestors, v2 then v1;
 * 0 when no level has a limit.  `where` names the files. */
static uint64_t cgroup_headroom(char *where, size_t n) {
    char path[512];
    uint64_t room = 0;
    if (cgroup_path("0::", path, sizeof path))
        room = headroom_walk("/sys/fs/cgroup", path, "memory.max", "memory.current");
    if (room) {
        snprintf(where, n, "cgroup v2 memory.max - memory.current of /sys/fs/cgroup%s or an ancestor", path);
        return room;
    }
    if (cgroup_path(":memory:", path, sizeof path))
        room = headroom_walk("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes");
    if (room)
        snprintf(where, n,
                 "cgroup v1 memory.limit_in_bytes - memory.usage_in_bytes of /sys/fs/cgroup/memory%s "
                 "or an ancestor",
                 path);
    return room;
}

/* ------------------------------------------------------------------ discovery */

/* The size of the first cache object of `type` (0 if none). */
static uint64_t cache_size(hwloc_topology_t t, hwloc_obj_type_t type, int *count) {
    *count = hwloc_get_nbobjs_by_type(t, type);
    hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
    return o && o->attr ? (uint64_t)o->attr->cache.size : 0;
}

static int discover_hwloc(stn_hw *hw) {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return -1;
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return -1;
    }
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    if (n > 0)
        fig(&hw->cores, (uint64_t)n, "hwloc: %d Core objects", n);
    n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    if (n > 0)
        fig(&hw->pus, (uint64_t)n, "hwloc: %d PU objects", n);
    n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    if (n > 0)
        fig(&hw->sockets, (uint64_t)n, "hwloc: %d Package objects", n);
    n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    if (n > 0)
        fig(&hw->numa_nodes, (uint64_t)n, "hwloc: %d NUMANode objects", n);
    uint64_t sz = cache_size(t, HWLOC_OBJ_L2CACHE, &n);
    if (sz)
        fig(&hw->l2, sz, "hwloc: L2Cache (%d of them)", n);
    sz = cache_size(t, HWLOC_OBJ_L3CACHE, &n);
    if (sz)
        fig(&hw->l3, sz, "hwloc: L3Cache (%d of them)", n);
    hwloc_obj_t root = hwloc_get_root_obj(t);
    if (root && root->total_memory)
        fig(&hw->dram_hwloc, (uint64_t)root->total_memory, "hwloc: total memory of the NUMA nodes");
    hwloc_topology_destroy(t);
    return 0;
}

int stn_hw_discover(stn_hw *hw) {
    memset(hw, 0, sizeof *hw);
    snprintf(hw->machine, sizeof hw->machine, "this machine");
    int hw_ok = discover_hwloc(hw) == 0;
    if (!hw->cores.value) { /* no hwloc topology: what the C library knows */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        fig(&hw->cores, n > 0 ? (uint64_t)n : 1, "%s; sysconf(_SC_NPROCESSORS_ONLN)",
            hw_ok ? "hwloc found no Core" : "hwloc failed to load the topology");
    }
    if (!hw->pus.value)
        fig(&hw->pus, hw->cores.value, "as cores");
    if (!hw->sockets.value)
        fig(&hw->sockets, 1, "assumed: hwloc found no Package");
    if (!hw->numa_nodes.value)
        fig(&hw->numa_nodes, 1, "assumed: hwloc found no NUMANode");
    if (!hw->l2.value) {
        long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
        fig(&hw->l2, v > 0 ? (uint64_t)v : 256u << 10,
            v > 0 ? "sysconf(_SC_LEVEL2_CACHE_SIZE)" : "assumed: 256 KiB");
    }
    if (!hw->l3.value) {
        long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
        fig(&hw->l3, v > 0 ? (uint64_t)v : 0, v > 0 ? "sysconf(_SC_LEVEL3_CACHE_SIZE)" : "none found");
    }
    uint64_t avail = meminfo_bytes("MemAvailable");
    if (avail)
        fig(&hw->mem_available, avail, "/proc/meminfo MemAvailable");
    char where[720]; /* a cgroup path of up to 511 bytes and the words around it */
    uint64_t cg = cgroup_headroom(where, sizeof where);
    if (cg)
        fig(&hw->cgroup, cg, "%s", where);
    /* the smallest figure any source gives */
    const stn_hw_fig *c[3] = {&hw->dram_hwloc, &hw->mem_available, &hw->cgroup}, *best = NULL;
    static const char *const label[3] = {"hwloc's memory", "MemAvailable", "the cgroup's headroom"};
    for (int k = 0; k < 3; k++)
        if (c[k]->value && (!best || c[k]->value < best->value))
            best = c[k], snprintf(hw->dram_from, sizeof hw->dram_from, "%s", label[k]);
    if (best) {
        fig(&hw->dram, best->value, "the smallest of hwloc, MemAvailable and the cgroup: %s", best->source);
    } else {
        long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        if (pages > 0 && psize > 0)
            fig(&hw->dram, (uint64_t)pages * (uint64_t)psize, "sysconf(_SC_AVPHYS_PAGES)");
        else
            fig(&hw->dram, 1ULL << 30, "a guess of 1 GiB (no source answered)");
        snprintf(hw->dram_from, sizeof hw->dram_from, "%s",
                 pages > 0 ? "free memory (sysconf)" : "a guess of 1 GiB");
    }
    fig(&hw->reserve, stn_mem_reserve(hw->dram.value), "1/%d of the DRAM figure: page cache, program, system",
        STN_MEM_RESERVE_DEN);
    return 0;
}

/* ------------------------------------------------------------------ machine files */

/* A machine file is one flat JSON object of numbers and strings (see docs/machines.md). */
typedef struct jreader {
    const char *path, *s, *p;
} jreader;

static int jerr(const jreader *j, const char *what) {
    int line = 1, col = 1;
    for (const char *q = j->s; q < j->p; q++)
        line += *q == '\n', col = *q == '\n' ? 1 : col + 1;
    return stn_error(-EINVAL, "--machine %s:%d:%d: %s", j->path, line, col, what);
}

static void jspace(jreader *j) {
    while (*j->p && isspace((unsigned char)*j->p))
        j->p++;
}

/* A string without escapes other than \" and \\ (machine names and descriptions need no more). */
static int jstring(jreader *j, char *out, size_t n) {
    if (*j->p != '"')
        return jerr(j, "expected a string");
    j->p++;
    size_t k = 0;
    while (*j->p && *j->p != '"') {
        char c = *j->p++;
        if (c == '\\') {
            if (*j->p != '"' && *j->p != '\\')
                return jerr(j, "only \\\" and \\\\ escapes are supported in a machine file");
            c = *j->p++;
        }
        if (k + 1 < n)
            out[k++] = c;
    }
    if (*j->p != '"')
        return jerr(j, "unterminated string");
    j->p++;
    out[k] = '\0';
    return 0;
}

typedef struct jkey {
    const char *name;
    size_t offset; /* of the stn_hw_fig in stn_hw; (size_t)-1: a string */
    int bytes;     /* a byte count: "64G" style strings accepted */
} jkey;

#define FIG(m) offsetof(stn_hw, m)
static const jkey machine_keys[] = {
    {"name", (size_t)-1, 0},
    {"description", (size_t)-2, 0},
    {"cores", FIG(cores), 0},
    {"sockets", FIG(sockets), 0},
    {"numa_nodes", FIG(numa_nodes), 0},
    {"l2", FIG(l2), 1},
    {"l3", FIG(l3), 1},
    {"dram", FIG(dram), 1},
    {"reserve", FIG(reserve), 1},
    {"device_block", FIG(block), 1},
    {"read", (size_t)-3, 0},
    {"write", (size_t)-4, 0},
    {"cells_per_second", (size_t)-5, 0},
    {"mixed", (size_t)-6, 0},
    {"mixed_new", (size_t)-7, 0},
    {"compute_under_io", (size_t)-8, 0},
    {"copy_bytes_per_second", (size_t)-9, 0},
    {"io_under_compute", (size_t)-10, 0},
    {"device", (size_t)-11, 0},
    {"measured_at", (size_t)-12, 0},
    {"compute_under_io_1m", (size_t)-13, 0},
    {"io_under_compute_1m", (size_t)-14, 0},
    {"remove_seconds_per_gib", (size_t)-15, 0},
};
#define N_MACHINE_KEYS ((int)(sizeof machine_keys / sizeof machine_keys[0]))

/* "read" / "write" / "mixed" / "mixed_new": a device curve (stn_device.h). */
static int jcurve(jreader *j, stn_hw *hw, const jkey *key) {
    char text[4096], err[400], msg[600];
    const char *at = j->p;
    int rc = jstring(j, text, sizeof text);
    if (rc)
        return rc;
    stn_dev_curve *c = key->offset == (size_t)-3   ? &hw->dev.read
                       : key->offset == (size_t)-4 ? &hw->dev.write
                       : key->offset == (size_t)-6 ? &hw->dev.mixed
                                                   : &hw->dev.mixed_new;
    if (stn_dev_parse_curve(text, c, err, sizeof err) != 0) {
        j->p = at;
        snprintf(msg, sizeof msg, "\"%s\": %s", key->name, err);
        return jerr(j, msg);
    }
    if (key->offset == (size_t)-3 || key->offset == (size_t)-4)
        hw->dev_keys |= key->offset == (size_t)-3 ? 1 : 2;
    return 0;
}

/* "cells_per_second": the compute rate to assume (a positive number); "compute_under_io": the
 * share of it left while the device is busy (more than 0, at most 1). */
static int jrate(jreader *j, stn_hw *hw, const jkey *key) {
    char text[64], *end;
    const char *at = j->p;
    size_t k = 0;
    while (*j->p && (isdigit((unsigned char)*j->p) || *j->p == '.' || *j->p == '-' || *j->p == '+' ||
                     *j->p == 'e' || *j->p == 'E'))
        if (k + 1 < sizeof text)
            text[k++] = *j->p++;
    text[k] = '\0';
    double v = strtod(text, &end);
    int share = key->offset == (size_t)-8 || key->offset == (size_t)-10 || key->offset == (size_t)-13 ||
                key->offset == (size_t)-14,
        copy = key->offset == (size_t)-9, rm = key->offset == (size_t)-15;
    if (!*text || *end || !(v > 0) || !isfinite(v) || (share && v > 1)) {
        char msg[160];
        j->p = at;
        if (share)
            snprintf(msg, sizeof msg, "\"%s\": expected a number more than 0 and at most 1, e.g. 0.8",
                     key->name);
        else
            snprintf(msg, sizeof msg, "\"%s\": expected a positive number, e.g. %s", key->name,
                     copy ? "8e9"
                     : rm ? "0.25"
                          : "1.5e9");
        return jerr(j, msg);
    }
    if (key->offset == (size_t)-10)
        hw->dev.io_under_compute = v;
    else if (key->offset == (size_t)-13)
        hw->dev.compute_under_io_1m = v;
    else if (key->offset == (size_t)-14)
        hw->dev.io_under_compute_1m = v;
    else if (rm)
        hw->dev.remove_seconds_per_gib = v;
    else if (share)
        hw->dev.compute_under_io = v;
    else if (copy)
        hw->copy_bytes_per_second = v;
    else
        hw->cells_per_second = v;
    return 0;
}

/* "measured_at": seconds since the epoch, a whole number (what a probe or a calibration wrote). */
static int jstamp(jreader *j, stn_hw *hw) {
    const char *at = j->p;
    char *end;
    errno = 0;
    long long v = strtoll(j->p, &end, 10);
    if (end == j->p || errno || v <= 0 || (*end != ',' && *end != '}' && !isspace((unsigned char)*end))) {
        j->p = at;
        return jerr(j, "\"measured_at\": expected seconds since 1970 (a positive whole number)");
    }
    j->p = end;
    hw->dev.measured_at = v;
    return 0;
}

static int jvalue(jreader *j, stn_hw *hw, const jkey *key) {
    char text[256];
    if (key->offset == (size_t)-3 || key->offset == (size_t)-4 || key->offset == (size_t)-6 ||
        key->offset == (size_t)-7)
        return jcurve(j, hw, key);
    if (key->offset == (size_t)-5 || key->offset == (size_t)-8 || key->offset == (size_t)-9 ||
        key->offset == (size_t)-10 || key->offset == (size_t)-13 || key->offset == (size_t)-14 ||
        key->offset == (size_t)-15)
        return jrate(j, hw, key);
    if (key->offset == (size_t)-1 || key->offset == (size_t)-2 || key->offset == (size_t)-11) {
        int rc = jstring(j, text, sizeof text);
        char *to = key->offset == (size_t)-1   ? hw->machine
                   : key->offset == (size_t)-2 ? hw->description
                                               : hw->dev.device_id;
        size_t tn = key->offset == (size_t)-1   ? sizeof hw->machine
                    : key->offset == (size_t)-2 ? sizeof hw->description
                                                : sizeof hw->dev.device_id;
        if (rc == 0)
            snprintf(to, tn, "%s", text);
        return rc;
    }
    if (key->offset == (size_t)-12)
        return jstamp(j, hw);
    const char *at = j->p;
    if (*j->p == '"') {
        int rc = jstring(j, text, sizeof text);
        if (rc)
            return rc;
    } else {
        size_t k = 0;
        while (*j->p && (isdigit((unsigned char)*j->p) || *j->p == '.' || *j->p == '-' || *j->p == '+' ||
                         *j->p == 'e' || *j->p == 'E'))
            if (k + 1 < sizeof text)
                text[k++] = *j->p++;
        text[k] = '\0';
    }
    uint64_t v;
    int ok = key->bytes ? stn_parse_bytes(text, &v) == 0 : 0;
    if (!key->bytes) {
        char *end;
        errno = 0;
        unsigned long long u = strtoull(text, &end, 10);
        ok = *text && *end == '\0' && errno == 0 && text[0] != '-' && u > 0 && u < (1ULL << 31);
        v = u;
    }
    if (!ok) {
        char msg[400];
        j->p = at;
        snprintf(msg, sizeof msg, "\"%s\": '%s' is not %s", key->name, text,
                 key->bytes ? "a byte count (a number, or a string such as \"64G\")" : "a positive integer");
        return jerr(j, msg);
    }
    stn_hw_fig *f = (stn_hw_fig *)(void *)((char *)hw + key->offset);
    fig(f, v, "--machine %s", j->path);
    return 0;
}

static int parse_machine(jreader *j, stn_hw *hw) {
    jspace(j);
    if (*j->p != '{')
        return jerr(j, "expected '{': a machine file is one JSON object");
    j->p++;
    jspace(j);
    while (*j->p != '}') {
        char name[64];
        const char *at = j->p;
        int rc = jstring(j, name, sizeof name);
        if (rc)
            return rc;
        const jkey *key = NULL;
        for (int k = 0; k < N_MACHINE_KEYS && !key; k++)
            if (strcmp(machine_keys[k].name, name) == 0)
                key = &machine_keys[k];
        if (!key) {
            j->p = at;
            char msg[400];
            snprintf(msg, sizeof msg,
                     "unknown key \"%s\" (known: name, description, cores, sockets, numa_nodes, "
                     "l2, l3, dram, reserve, device_block, read, write, mixed, mixed_new, compute_under_io, "
                     "compute_under_io_1m, io_under_compute, io_under_compute_1m, cells_per_second, "
                     "copy_bytes_per_second, device, measured_at, remove_seconds_per_gib)",
                     name);
            return jerr(j, msg);
        }
        jspace(j);
        if (*j->p != ':')
            return jerr(j, "expected ':'");
        j->p++;
        jspace(j);
        if ((rc = jvalue(j, hw, key)) != 0)
            return rc;
        jspace(j);
        if (*j->p == ',') {
            j->p++;
            jspace(j);
            if (*j->p == '}')
                return jerr(j, "a trailing ',' is not JSON");
        } else if (*j->p != '}') {
            return jerr(j, "expected ',' or '}'");
        }
    }
    j->p++;
    jspace(j);
    if (*j->p)
        return jerr(j, "unexpected text after the object");
    return 0;
}

int stn_hw_load_machine(const char *path, stn_hw *hw) {
    memset(hw, 0, sizeof *hw);
    FILE *f = fopen(path, "re");
    if (!f)
        return stn_error(stn_neg_errno(errno), "--machine %s: %s", path, strerror(errno));
    char *text = calloc(1, 1 << 16);
    size_t n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    int big = text && !feof(f);
    fclose(f);
    if (!text)
        return stn_error(-ENOMEM, "out of memory reading --machine %s", path);
    if (big) {
        free(text);
        return stn_error(-EINVAL, "--machine %s: larger than 64 KiB; a machine file is a small JSON object",
                         path);
    }
    text[n] = '\0';
    jreader j = {path, text, text};
    int rc = parse_machine(&j, hw);
    free(text);
    if (rc)
        return rc;
    static const struct {
        size_t off;
        const char *name;
    } required[] = {{FIG(cores), "cores"}, {FIG(l2), "l2"}, {FIG(dram), "dram"}};
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
        if (!((stn_hw_fig *)(void *)((char *)hw + required[k].off))->value)
            return stn_error(-EINVAL, "--machine %s: \"%s\" is required (see docs/machines.md)", path,
                             required[k].name);
    if (!hw->machine[0])
        snprintf(hw->machine, sizeof hw->machine, "%s", path);
    if (!hw->sockets.value)
        fig(&hw->sockets, 1, "default: 1 (not in --machine %s)", path);
    if (!hw->numa_nodes.value)
        fig(&hw->numa_nodes, hw->sockets.value, "default: one per socket (not in --machine %s)", path);
    fig(&hw->pus, hw->cores.value, "as cores (--machine %s)", path);
    if (!hw->block.value)
        fig(&hw->block, 4096, "default: 4096 (not in --machine %s)", path);
    if (hw->block.value & (hw->block.value - 1))
        return stn_error(-EINVAL, "--machine %s: \"device_block\" %" PRIu64 " is not a power of two", path,
                         hw->block.value);
    if (!hw->reserve.source[0])
        fig(&hw->reserve, stn_mem_reserve(hw->dram.value), "default: 1/%d of \"dram\" (not in --machine %s)",
            STN_MEM_RESERVE_DEN, path);
    if (hw->reserve.value >= hw->dram.value)
        return stn_error(-EINVAL,
                         "--machine %s: \"reserve\" (%" PRIu64 ") leaves nothing of \"dram\" (%" PRIu64 ")",
                         path, hw->reserve.value, hw->dram.value);
    if (hw->dev_keys == 1 || hw->dev_keys == 2)
        return stn_error(-EINVAL, "--machine %s: \"%s\" is given without \"%s\": a device needs both curves",
                         path, hw->dev_keys == 1 ? "read" : "write", hw->dev_keys == 1 ? "write" : "read");
    const stn_device *dv = &hw->dev;
    const char *extra = dv->mixed.n                   ? "mixed"
                        : dv->mixed_new.n             ? "mixed_new"
                        : dv->compute_under_io > 0    ? "compute_under_io"
                        : dv->compute_under_io_1m > 0 ? "compute_under_io_1m"
                        : dv->io_under_compute > 0    ? "io_under_compute"
                        : dv->io_under_compute_1m > 0 ? "io_under_compute_1m"
                                                      : "remove_seconds_per_gib";
    if (hw->dev_keys != 3 &&
        (dv->mixed.n || dv->mixed_new.n || dv->compute_under_io > 0 || dv->compute_under_io_1m > 0 ||
         dv->io_under_compute > 0 || dv->io_under_compute_1m > 0 || dv->remove_seconds_per_gib > 0))
        return stn_error(-EINVAL,
                         "--machine %s: \"%s\" is given without \"read\" and \"write\": the time model "
                         "takes a device's figures together",
                         path, extra);
    for (int k = 0; k < 2; k++) /* a share at 1M refines the one at 64K, never replaces it */
        if ((k ? dv->io_under_compute_1m : dv->compute_under_io_1m) > 0 &&
            !((k ? dv->io_under_compute : dv->compute_under_io) > 0))
            return stn_error(-EINVAL, "--machine %s: \"%s_1m\" is given without \"%s\" (the share at 64K)",
                             path, k ? "io_under_compute" : "compute_under_io",
                             k ? "io_under_compute" : "compute_under_io");
    if (hw->dev_keys)
        snprintf(hw->dev.source, sizeof hw->dev.source, "%s", path);
    hw->described = 1;
    return 0;
}

uint64_t stn_hw_budget(const stn_hw *hw, char *source, size_t n) {
    char a[32], b[32];
    if (hw->described)
        snprintf(source, n, "--machine %s: dram %s less reserve %s", hw->machine,
                 stn_fmt_bytes(a, sizeof a, hw->dram.value), stn_fmt_bytes(b, sizeof b, hw->reserve.value));
    else
        snprintf(source, n, "default: %d/%d of %s, the smallest of hwloc, MemAvailable and the cgroup",
                 STN_MEM_RESERVE_DEN - 1, STN_MEM_RESERVE_DEN, hw->dram_from);
    return hw->dram.value - hw->reserve.value;
}
