/* mem.c -- the memory figures of the system: /proc/meminfo and the memory cgroup (v1 and v2).
 * hw.c combines them with hwloc's into the DRAM figure a budget is planned from. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A "key: value kB" line of /proc/meminfo, in bytes (0 if absent). */
uint64_t stn_meminfo_bytes(const char *key) {
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

uint64_t stn_cgroup_headroom(char *where, size_t n) {
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
