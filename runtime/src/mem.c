/* mem.c -- the default DRAM budget: a safe share of what the machine and its cgroup allow. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The share of the available memory a run may plan with: the rest covers the page cache the
 * IO needs, the program itself and whatever else runs beside it. */
#define SAFE_NUM 3
#define SAFE_DEN 4

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

/* This process' cgroup v2 directory under /sys/fs/cgroup ("" for the root). */
static void cgroup_v2_dir(char *out, size_t n) {
    out[0] = '\0';
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, n, "%s", strcmp(line + 3, "/") == 0 ? "" : line + 3);
            break;
        }
    fclose(f);
}

/* Memory left under the cgroup limit (0: no limit found).  v2 first, then v1. */
static uint64_t cgroup_headroom(void) {
    char dir[512], max_path[600], cur_path[600];
    cgroup_v2_dir(dir, sizeof dir);
    for (int pass = 0; pass < 2; pass++) {
        /* the process' own cgroup, then the namespace root (containers often show only "/") */
        const char *d = pass == 0 ? dir : "";
        snprintf(max_path, sizeof max_path, "/sys/fs/cgroup%s/memory.max", d);
        snprintf(cur_path, sizeof cur_path, "/sys/fs/cgroup%s/memory.current", d);
        uint64_t limit = cgroup_number(max_path);
        if (limit) {
            uint64_t used = cgroup_number(cur_path);
            return limit > used ? limit - used : 1;
        }
    }
    uint64_t limit = cgroup_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    if (limit) {
        uint64_t used = cgroup_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
        return limit > used ? limit - used : 1;
    }
    return 0;
}

uint64_t stn_default_mem_budget(char *source, size_t n) {
    uint64_t avail = meminfo_bytes("MemAvailable");
    const char *what = "MemAvailable";
    if (!avail) {
        long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        avail = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : (1ULL << 30);
        what = pages > 0 ? "free memory (sysconf)" : "a guess of 1 GiB";
    }
    uint64_t cg = cgroup_headroom();
    if (cg && cg < avail) {
        avail = cg;
        what = "the cgroup's memory limit minus its usage";
    }
    snprintf(source, n, "default: %d/%d of %s", SAFE_NUM, SAFE_DEN, what);
    return avail / SAFE_DEN * SAFE_NUM;
}
